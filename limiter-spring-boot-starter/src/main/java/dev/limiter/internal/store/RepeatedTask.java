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
public final class RepeatedTask {

	private final String threadName;

	private final Duration initialDelay;

	private final Duration delay;

	private final Runnable task;

	private volatile ScheduledExecutorService executor;

	/**
	 * Create the task, not started.
	 * @param threadName the name of its thread
	 * @param initialDelay the wait before the first run
	 * @param delay the wait between the end of a run and the next
	 * @param task what runs
	 */
	public RepeatedTask(String threadName, Duration initialDelay, Duration delay, Runnable task) {
		this.threadName = threadName;
		this.initialDelay = initialDelay;
		this.delay = delay;
		this.task = task;
	}

	/**
	 * Start running the task.
	 */
	public void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, this.threadName);
			thread.setDaemon(true);
			return thread;
		});
		executor.scheduleWithFixedDelay(this.task, this.initialDelay.toMillis(), this.delay.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	/**
	 * Stop running it, interrupting a run under way.
	 */
	public void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			executor.shutdownNow();
			this.executor = null;
		}
	}

	/**
	 * Return whether it runs.
	 * @return whether it was started and not stopped
	 */
	public boolean isRunning() {
		return this.executor != null;
	}

}
