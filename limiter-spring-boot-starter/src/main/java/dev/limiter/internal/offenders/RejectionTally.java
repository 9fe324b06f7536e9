package dev.limiter.internal.offenders;

/**
 * Told of every rejection the aspect enforces, with the limit that decided it and the key
 * it counted under: what the {@code ratelimits} endpoint needs to name the callers
 * rejected most, which metrics must not (a tag per caller).
 */
@FunctionalInterface
public interface RejectionTally {

	/** Counts nothing. */
	RejectionTally NONE = (limit, key) -> {
	};

	/**
	 * Count a rejection.
	 * @param limit the name of the limit that decided it
	 * @param key the key the call counted under
	 */
	void rejected(String limit, String key);

}
