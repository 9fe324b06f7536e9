package dev.limiter;

import java.time.Duration;

/**
 * How much of one {@link Limit} a key has used, read without recording anything.
 *
 * @param limit the limit
 * @param used the permits counted in the window (for a token bucket, the tokens taken and
 * not yet refilled)
 * @param remaining the permits a call could still take now
 * @param resetAfter the time until the limit counts nothing for this key again
 * @param currentSlice the permits counted in the current slice of a
 * {@link Algorithm#SLIDING_BUCKETS} window, {@code -1} for other algorithms
 * @param penalty the time the key stays refused by the limit's penalty
 * ({@link Limit#withPenalty}), {@link Duration#ZERO} when it serves none
 */
public record Usage(Limit limit, long used, long remaining, Duration resetAfter, long currentSlice, Duration penalty) {

	/**
	 * Create the usage of a key that serves no penalty.
	 * @param limit the limit
	 * @param used the permits counted in the window
	 * @param remaining the permits a call could still take now
	 * @param resetAfter the time until the limit counts nothing for this key again
	 * @param currentSlice the permits counted in the current slice, {@code -1} without
	 * slices
	 */
	public Usage(Limit limit, long used, long remaining, Duration resetAfter, long currentSlice) {
		this(limit, used, remaining, resetAfter, currentSlice, Duration.ZERO);
	}

}
