package dev.limiter.internal.store;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Subscribes to what other instances publish (resets, overrides) without making the
 * application's start wait on Redis: the subscription is made on a thread of its own, and
 * tried again every few seconds while Redis is not there, so that an absent Redis is
 * covered by the failure policy like everywhere else.
 */
public final class RedisSubscription implements SmartLifecycle, DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(RedisSubscription.class);

	private static final Duration RETRY = Duration.ofSeconds(5);

	private final RedisMessageListenerContainer container;

	private volatile Thread subscriber;

	private volatile boolean running;

	private final String topic;

	private final Runnable subscribed;

	/**
	 * Create the subscription.
	 * @param container the listener container, not started
	 * @param topic what it subscribes to, as its thread and its warning name it
	 */
	public RedisSubscription(RedisMessageListenerContainer container, String topic) {
		this(container, topic, () -> {
		});
	}

	/**
	 * Create the subscription, with what to do once it listens: read what was published
	 * while it was being made, which it did not hear.
	 * @param container the listener container, not started
	 * @param topic what it subscribes to, as its thread and its warning name it
	 * @param subscribed what runs once the container listens
	 */
	public RedisSubscription(RedisMessageListenerContainer container, String topic, Runnable subscribed) {
		this.container = container;
		this.topic = topic;
		this.subscribed = subscribed;
	}

	@Override
	public void start() {
		this.running = true;
		Thread thread = new Thread(this::subscribe, "limiter-" + this.topic);
		thread.setDaemon(true);
		this.subscriber = thread;
		thread.start();
	}

	private void subscribe() {
		boolean warned = false;
		while (this.running) {
			try {
				this.container.afterPropertiesSet();
				// returns once the subscription is registered
				this.container.start();
				this.subscribed.run();
				return;
			}
			catch (RuntimeException ex) {
				if (!warned) {
					logger.warn("Limiter cannot subscribe to {} yet ({}); trying again every {} s", this.topic,
							ex.getMessage(), RETRY.toSeconds());
					warned = true;
				}
			}
			try {
				Thread.sleep(RETRY.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Override
	public void stop() {
		this.running = false;
		Thread thread = this.subscriber;
		if (thread != null) {
			thread.interrupt();
		}
		if (this.container.isRunning()) {
			this.container.stop();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void destroy() throws Exception {
		this.container.destroy();
	}

}
