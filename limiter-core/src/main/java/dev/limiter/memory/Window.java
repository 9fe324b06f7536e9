package dev.limiter.memory;

import dev.limiter.Limit;

/**
 * The state of one limit for one key, in memory: the twin of that algorithm's script. Not
 * thread-safe; the key's entry guards it. Times are microseconds.
 */
abstract class Window {

	/** The permits counted now, after {@link #load} or {@link #record}. */
	long used;

	/**
	 * Return the state of a limit's algorithm: the one place that maps an algorithm to
	 * its in-memory type.
	 */
	static Window of(Limit limit) {
		return switch (limit.algorithm()) {
			case SLIDING_LOG -> new LogWindow(limit);
			case SLIDING_BUCKETS -> new BucketWindow(limit);
			case TOKEN_BUCKET -> new TokenBucketWindow(limit);
		};
	}

	/**
	 * Forget what has left the window by {@code now} and count the rest into
	 * {@link #used}.
	 */
	abstract void load(long now);

	/**
	 * Record permits taken at {@code now}. Past the threshold (a rejected call that
	 * counts), only the newest threshold's worth is kept.
	 */
	abstract void record(long now, long permits);

	/** Return the time from {@code now} until {@code permits} more fit, after load. */
	abstract long waitFor(long now, long permits);

	/** Return the time from {@code now} until the window counts nothing. */
	abstract long resetAfter(long now);

	/** Give back permits taken at {@code at}, if they still count. */
	abstract void release(long now, long at, long permits);

	/**
	 * Return the permits counted in the current slice, {@code -1} when there are no
	 * slices.
	 */
	long currentSlice(long now) {
		return -1;
	}

	/** Return the time at which the window will count nothing. */
	abstract long expiresAt();

}
