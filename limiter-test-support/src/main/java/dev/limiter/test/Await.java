package dev.limiter.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition on servers that are starting, joining or failing over, every 50 ms,
 * until it holds or a timeout passes.
 */
final class Await {

	/** How long set-ups wait when they name no time. */
	static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

	private Await() {
	}

	/**
	 * Wait until a condition holds; a condition that throws counts as not holding yet (a
	 * server that is starting or failing over refuses a connection).
	 * @param what what is awaited, for the message of a timeout
	 * @param timeout how long to wait
	 * @param condition the condition
	 * @throws IllegalStateException when the timeout passes first
	 */
	static void until(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() < deadline) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what, last);
	}

}
