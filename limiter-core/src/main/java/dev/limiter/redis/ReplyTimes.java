package dev.limiter.redis;

import java.time.Duration;

/**
 * How long Redis has lately taken to answer on one connection, late answers included, so
 * that a busy Redis is waited for and a silent one is not: a call waits for Redis twice
 * the slowest recent answer (halved every {@link #HALF_LIFE} since), at least the
 * limiter's timeout and at most {@link #CEILING} (or the timeout, when larger). A Redis
 * that answered fast and then stops answering is given the timeout, as before.
 */
final class ReplyTimes {

	/**
	 * The longest a call waits on a Redis that has been answering slowly: a Redis that
	 * answers within a few hundred milliseconds is slow, not gone.
	 */
	static final Duration CEILING = Duration.ofMillis(500);

	/** How fast a slow answer is forgotten: its weight halves every half-life. */
	static final Duration HALF_LIFE = Duration.ofSeconds(10);

	private static final long HALF_LIFE_NANOS = HALF_LIFE.toNanos();

	// A volatile write per answer at most once in this long: many event loops answer.
	private static final long REPLY_STAMP_NANOS = 100_000;

	private final long floorNanos;

	private final long ceilingNanos;

	private volatile long slowNanos;

	private volatile long slowAtNanos;

	private volatile long lastReplyNanos;

	/**
	 * Create the record of one connection.
	 * @param timeoutNanos the limiter's timeout, the least a call waits
	 * @param mostNanos the longest any call may wait (the connection's own deadline)
	 */
	ReplyTimes(long timeoutNanos, long mostNanos) {
		this.floorNanos = timeoutNanos;
		this.ceilingNanos = Math.max(timeoutNanos, Math.min(CEILING.toNanos(), mostNanos));
	}

	/**
	 * Note an answer from Redis, in time or late.
	 * @param tookNanos how long Redis took, from the write of the command
	 * @param nowNanos the time now
	 */
	void answered(long tookNanos, long nowNanos) {
		if (nowNanos - this.lastReplyNanos > REPLY_STAMP_NANOS) {
			this.lastReplyNanos = nowNanos;
		}
		if (tookNanos > slowest(nowNanos)) {
			this.slowNanos = tookNanos;
			this.slowAtNanos = nowNanos;
		}
	}

	/**
	 * Return how long a call started now waits for Redis.
	 * @param nowNanos the time now
	 * @return the wait, between the timeout and the ceiling
	 */
	long patienceNanos(long nowNanos) {
		long slowest = slowest(nowNanos);
		long twice = (slowest > Long.MAX_VALUE / 2) ? Long.MAX_VALUE : 2 * slowest;
		return Math.min(this.ceilingNanos, Math.max(this.floorNanos, twice));
	}

	/**
	 * Return whether Redis answered anything on this connection since a time: a call
	 * whose command was written then and that had no answer met a busy Redis, not an
	 * absent one, since one connection's answers come in order.
	 * @param sinceNanos the time the command was written
	 * @return whether an answer came after it
	 */
	boolean answeredSince(long sinceNanos) {
		long last = this.lastReplyNanos;
		return last != 0 && last - sinceNanos > 0;
	}

	private long slowest(long nowNanos) {
		long slow = this.slowNanos;
		if (slow == 0) {
			return 0;
		}
		long halvings = (nowNanos - this.slowAtNanos) / HALF_LIFE_NANOS;
		return (halvings >= 63) ? 0 : slow >> halvings;
	}

}
