package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.internal.store.LimiterRedisConnection;

/**
 * Asks Redis, once a second on a daemon thread of its own, whether it answers after it
 * did not at startup, and says so once when it does: the startup line said where limits
 * are counted until Redis answers, this one says that it did. A busy Redis, or a busy JVM
 * on a few cores, can miss the start's wait and answer a moment later; the two lines then
 * tell that story instead of contradicting each other. It stops when Redis answers, when
 * the connection is closed, or after a bounded time.
 */
final class StartupWatch implements AutoCloseable, Runnable {

	private static final Logger logger = LoggerFactory.getLogger(LimiterAutoConfiguration.class);

	private final LimiterRedisConnection connection;

	private final long deadline;

	private final long started;

	private final Duration pause;

	private volatile boolean closed;

	private StartupWatch(LimiterRedisConnection connection, Duration watch, Duration pause) {
		this.connection = connection;
		this.started = System.nanoTime();
		this.deadline = this.started + watch.toNanos();
		this.pause = pause;
	}

	/**
	 * Start watching a connection that did not answer at startup.
	 * @param connection the limiter's connection
	 * @param watch how long to keep asking
	 * @param pause the pause between two questions
	 * @return the watch, to close with the connection
	 */
	static StartupWatch start(LimiterRedisConnection connection, Duration watch, Duration pause) {
		StartupWatch startupWatch = new StartupWatch(connection, watch, pause);
		Thread thread = new Thread(startupWatch, "limiter-startup-watch");
		thread.setDaemon(true);
		thread.start();
		return startupWatch;
	}

	@Override
	public void run() {
		while (!this.closed && System.nanoTime() < this.deadline) {
			LockSupport.parkNanos(this.pause.toNanos());
			if (this.closed) {
				return;
			}
			try {
				this.connection.ping();
			}
			catch (RuntimeException ex) {
				continue;
			}
			logger.info(
					"Limiter reached Redis at {} {} s after it first asked: rate limits are counted in Redis "
							+ "from now on",
					this.connection.getAddress(), Duration.ofNanos(System.nanoTime() - this.started).toSeconds());
			return;
		}
	}

	@Override
	public void close() {
		this.closed = true;
	}

}
