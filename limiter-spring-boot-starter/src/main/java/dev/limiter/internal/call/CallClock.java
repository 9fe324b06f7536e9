package dev.limiter.internal.call;

import java.time.Duration;

/**
 * The time in which the decision pipeline measures its decisions and waits for a turn:
 * the system's in an application, a test's own in tests, so that a test of a wait asserts
 * the wait itself rather than the wall-clock time that passed.
 */
public interface CallClock {

	/** The system's clock: {@link System#nanoTime()} and {@link Thread#sleep}. */
	CallClock SYSTEM = new CallClock() {

		@Override
		public long nanoTime() {
			return System.nanoTime();
		}

		@Override
		public void sleep(Duration duration) throws InterruptedException {
			Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
		}

	};

	/**
	 * Return a reading in nanoseconds, for durations only, as {@link System#nanoTime()}.
	 * @return the reading
	 */
	long nanoTime();

	/**
	 * Wait on the calling thread.
	 * @param duration how long
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	void sleep(Duration duration) throws InterruptedException;

}
