package dev.limiter.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * The controls of a test's rate limiter: its clock, which moves only when a test advances
 * it, and a reset that gives every caller its full quota again.
 */
public final class TestLimiter {

	private final TestClock clock;

	private final InMemoryRateLimiter rateLimiter;

	TestLimiter(Instant start, boolean countRejected) {
		this.clock = new TestClock(start);
		this.rateLimiter = new InMemoryRateLimiter(this.clock, countRejected);
	}

	/**
	 * Move the limiter's clock forward, so that calls leave their windows without the
	 * test waiting.
	 * @param duration how far, not negative
	 */
	public void advance(Duration duration) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException("duration must not be null or negative, was " + duration);
		}
		this.clock.instant = this.clock.instant.plus(duration);
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
