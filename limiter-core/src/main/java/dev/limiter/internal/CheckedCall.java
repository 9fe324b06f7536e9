package dev.limiter.internal;

import dev.limiter.Limit;

import java.util.List;

/**
 * A call whose key, permits and limits have been checked, so that a chain of limiters
 * (decorators around a store) checks a call once, at its outermost layer.
 * <p>
 * Only {@link #of(String, long, List)} creates one, so holding a {@code CheckedCall}
 * proves the check was made.
 */
public final class CheckedCall {

	private final String key;

	private final long permits;

	private final List<Limit> limits;

	private CheckedCall(String key, long permits, List<Limit> limits) {
		this.key = key;
		this.permits = permits;
		this.limits = limits;
	}

	/**
	 * Check a call.
	 * @param key what is limited; not blank
	 * @param permits the cost of the call, 1 to the smallest threshold
	 * @param limits the limits to check together, at least one
	 * @return the checked call, limits that share a window folded into one
	 * @throws IllegalArgumentException naming the argument and its allowed range
	 */
	public static CheckedCall of(String key, long permits, List<Limit> limits) {
		return new CheckedCall(key, permits, AbstractRateLimiter.validate(key, permits, limits));
	}

	/**
	 * Wrap arguments that were checked already, as {@code doAcquire} receives them.
	 */
	static CheckedCall trusted(String key, long permits, List<Limit> limits) {
		return new CheckedCall(key, permits, limits);
	}

	public String key() {
		return this.key;
	}

	public long permits() {
		return this.permits;
	}

	/**
	 * Return the limits, no two of them sharing a window.
	 * @return the limits
	 */
	public List<Limit> limits() {
		return this.limits;
	}

}
