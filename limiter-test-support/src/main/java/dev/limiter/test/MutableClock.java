package dev.limiter.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that tests move by hand, so time-dependent behaviour is tested without waiting.
 */
public final class MutableClock extends Clock {

	private volatile Instant instant;

	public MutableClock(Instant instant) {
		this.instant = instant;
	}

	/**
	 * Return a clock at the current system time truncated to the second.
	 * @return the clock
	 */
	public static MutableClock startingNow() {
		return new MutableClock(Instant.ofEpochSecond(Instant.now().getEpochSecond()));
	}

	public void set(Instant instant) {
		this.instant = instant;
	}

	public void advance(Duration duration) {
		this.instant = this.instant.plus(duration);
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
