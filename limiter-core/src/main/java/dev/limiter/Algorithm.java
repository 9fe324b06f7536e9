package dev.limiter;

/**
 * How a {@link Limit} counts: each algorithm keeps its own promise about the permits it
 * admits, at its own cost in memory and store time.
 */
public enum Algorithm {

	/**
	 * An exact sliding-window log: never more than N permits in any window of length W,
	 * and no call rejected that would have fitted. One entry per admitted permit, so
	 * memory grows with N.
	 */
	SLIDING_LOG,

	/**
	 * A ring of counters, one per slice of the window: never more than N permits in any
	 * window of length W, but a call may be rejected up to one slice early. Memory is
	 * bounded by the number of slices, whatever N is.
	 */
	SLIDING_BUCKETS,

	/**
	 * A token bucket (GCRA): a burst of up to N permits, refilled at N per W. At most N +
	 * N·t/W permits in any interval of length t. One number per key.
	 */
	TOKEN_BUCKET,

	/**
	 * One counter per window of a calendar ({@link Limit#withCalendar}: each minute,
	 * hour, day, week or month of a time zone), or per fixed window of the period from
	 * the epoch: never more than N permits in one window, and all of them again at its
	 * end. One number per key.
	 */
	CALENDAR,

	/**
	 * Calls in flight: never more than N calls of a key running at once. A call holds its
	 * slot until it ends ({@link RateLimiter#finish}); the period is its lease, after
	 * which a slot whose holder stopped renewing it (an instance that died mid-call)
	 * frees itself. One entry per call running.
	 */
	IN_FLIGHT,

	/**
	 * Calls in flight up to a limit each instance learns from the latency and the
	 * failures of its own calls, between a minimum and the threshold: decided in the
	 * application before the store is asked, never stored, so a {@link RateLimiter}
	 * refuses it; only a named limit of the configuration
	 * ({@code limiter.limits.<name>.algorithm: adaptive}) applies it.
	 */
	ADAPTIVE;

	/**
	 * Return whether a {@link RateLimiter}'s store counts the algorithm: every one but
	 * {@link #ADAPTIVE}, which each instance decides alone.
	 * @return whether the algorithm is stored
	 */
	public boolean isStored() {
		return this != ADAPTIVE;
	}

	/**
	 * Return the name as written in properties, such as {@code sliding-buckets}.
	 * @return the property name
	 */
	public String text() {
		return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

}
