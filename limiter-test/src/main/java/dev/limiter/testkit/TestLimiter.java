package dev.limiter.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.limiter.RateLimiter;
import dev.limiter.internal.Engines;
import dev.limiter.internal.Leases;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * The controls of a test's rate limiter: its clock, which moves only when a test advances
 * it, and a reset that gives every caller its full quota again.
 */
public final class TestLimiter {

	private final TestClock clock;

	private final InMemoryRateLimiter rateLimiter;

	/** The steps in which time passes while calls are in flight, each renewing them. */
	private static final Duration RENEWAL_STEP = Duration.ofMillis(100);

	private final Leases leases;

	TestLimiter(Instant start, boolean countRejected) {
		this.clock = new TestClock(start);
		this.rateLimiter = new InMemoryRateLimiter(this.clock, countRejected);
		// the leases of calls in flight are renewed on the test's time, as it passes
		this.leases = Engines.of(this.rateLimiter).leases();
		this.leases.renewOnlyOnDemand();
	}

	/**
	 * Move the limiter's clock forward, so that calls leave their windows without the
	 * test waiting. Calls in flight that have not ended keep their slots, as their
	 * instance would renew them while time passes.
	 * @param duration how far, not negative
	 */
	public void advance(Duration duration) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException("duration must not be null or negative, was " + duration);
		}
		Duration left = duration;
		while (this.leases.size() > 0 && left.compareTo(RENEWAL_STEP) > 0) {
			this.leases.renewAll();
			this.clock.instant = this.clock.instant.plus(RENEWAL_STEP);
			left = left.minus(RENEWAL_STEP);
		}
		this.leases.renewAll();
		this.clock.instant = this.clock.instant.plus(left);
		this.leases.renewAll();
	}

	/**
	 * Forget every call under every limit.
	 */
	public void reset() {
		this.rateLimiter.reset();
	}

	/**
	 * Return the limiter's current time.
	 * @return the instant its clock shows
	 */
	public Instant now() {
		return this.clock.instant;
	}

	/**
	 * Return the clock the limiter reads.
	 * @return the clock
	 */
	public Clock clock() {
		return this.clock;
	}

	RateLimiter rateLimiter() {
		return this.rateLimiter;
	}

	private static final class TestClock extends Clock {

		private volatile Instant instant;

		TestClock(Instant instant) {
			this.instant = instant;
		}

		@Override
		public Instant instant() {
			return this.instant;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

	}

}
