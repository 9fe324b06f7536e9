package dev.limiter.internal.store;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A task run again and again on a daemon thread of its own, for the Redis work an
 * instance does besides calls (reading overrides, sharing rejection counts): never on a
 * caller's thread, and never keeping the JVM alive.
 */
final class RepeatedTask {

	private final String threadName;

	private final Duration initialDelay;

	private final Duration delay;

	private final Runnable task;

	private volatile ScheduledExecutorService executor;

	RepeatedTask(String threadName, Duration initialDelay, Duration delay, Runnable task) {
		this.threadName = threadName;
		this.initialDelay = initialDelay;
		this.delay = delay;
		this.task = task;
	}

	void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, this.threadName);
			thread.setDaemon(true);
			return thread;
		});
		executor.scheduleWithFixedDelay(this.task, this.initialDelay.toMillis(), this.delay.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			executor.shutdownNow();
			this.executor = null;
		}
	}

	boolean isRunning() {
		return this.executor != null;
	}

}
