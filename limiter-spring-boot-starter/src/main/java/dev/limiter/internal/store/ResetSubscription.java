package dev.limiter.internal.store;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Subscribes to the resets of other instances without making the application's start wait
 * on Redis: the subscription is made on a thread of its own, and tried again every few
 * seconds while Redis is not there, so that an absent Redis is covered by the failure
 * policy like everywhere else.
 */
public final class ResetSubscription implements SmartLifecycle, DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(ResetSubscription.class);

	private static final Duration RETRY = Duration.ofSeconds(5);

	private final RedisMessageListenerContainer container;

	private volatile Thread subscriber;

	private volatile boolean running;

	/**
	 * Create the subscription.
	 * @param container the listener container, not started
	 */
	public ResetSubscription(RedisMessageListenerContainer container) {
		this.container = container;
	}

	@Override
	public void start() {
		this.running = true;
		Thread thread = new Thread(this::subscribe, "limiter-resets");
		thread.setDaemon(true);
		this.subscriber = thread;
		thread.start();
	}

	private void subscribe() {
		boolean warned = false;
		while (this.running) {
			try {
				this.container.afterPropertiesSet();
				this.container.start();
				return;
			}
			catch (RuntimeException ex) {
				if (!warned) {
					logger.warn("Limiter cannot subscribe to resets yet ({}); trying again every {} s", ex.getMessage(),
							RETRY.toSeconds());
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
