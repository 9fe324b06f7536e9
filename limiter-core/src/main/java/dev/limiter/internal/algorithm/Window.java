package dev.limiter.internal.algorithm;

import dev.limiter.Limit;

/**
 * The state of one limit for one key, in memory: the twin of that algorithm's script,
 * made by its {@link AlgorithmDescriptor}. Not thread-safe; the in-memory engine's key
 * entry guards it. Times are microseconds.
 */
public abstract class Window {

	/** The threshold in force: the latest a call gave, see {@link #retarget}. */
	long threshold;

	/** The permits counted now, after {@link #load} or {@link #record}. */
	long used;

	/** The end of the penalty the key serves under this limit, 0 for none. */
	private long penaltyEnds;

	Window(Limit limit) {
		this.threshold = limit.threshold();
	}

	/**
	 * Take a new threshold for the same state, before a load: what was counted keeps
	 * counting under the new number (a caller over it is rejected at once, one under it
	 * gets the room at once).
	 * @param limit the limit with the new threshold, of the same period and algorithm
	 * @param now the time of the call that brings it
	 */
	public void retarget(Limit limit, long now) {
		this.threshold = limit.threshold();
	}

	/**
	 * Return the threshold in force.
	 * @return the threshold
	 */
	public long threshold() {
		return this.threshold;
	}

	/**
	 * Return the permits counted now, after {@link #load} or {@link #record}.
	 * @return the permits used
	 */
	public long used() {
		return this.used;
	}

	/**
	 * Forget what has left the window by {@code now} and count the rest into
	 * {@link #used}.
	 */
	public abstract void load(long now);

	/**
	 * Record permits taken at {@code now}. Past the threshold (a rejected call that
	 * counts), only the newest threshold's worth is kept.
	 */
	public abstract void record(long now, long permits);

	/**
	 * Record permits taken at {@code now} by the call that {@code member} names; the
	 * algorithms that keep no member per call record as {@link #record(long, long)}.
	 */
	public void record(long now, long permits, String member) {
		record(now, permits);
	}

	/** Return the time from {@code now} until {@code permits} more fit, after load. */
	public abstract long waitFor(long now, long permits);

	/** Return the time from {@code now} until the window counts nothing. */
	public abstract long resetAfter(long now);

	/**
	 * Record permits a call turned out to cost beyond what it took, at {@code now}, past
	 * the threshold if need be: later calls wait until the window has room again.
	 * @throws UnsupportedOperationException if the algorithm cannot take charges
	 */
	public void charge(long now, long permits) {
		throw new UnsupportedOperationException("A charge is not supported under " + getClass().getSimpleName());
	}

	/** Give back permits taken at {@code at}, if they still count. */
	public abstract void release(long now, long at, long permits);

	/**
	 * Give back permits taken at {@code at} by the call that {@code member} names; the
	 * algorithms that keep no member per call give back as
	 * {@link #release(long, long, long)}.
	 */
	public void release(long now, long at, long permits, String member) {
		release(now, at, permits);
	}

	/**
	 * Renew the lease of the slots a running call holds, from {@code now}; a lease that
	 * ended is not renewed.
	 * @return whether the call still held a slot
	 */
	public boolean renew(long now, String member, long permits) {
		return false;
	}

	/**
	 * Return the permits counted in the current slice, {@code -1} when there are no
	 * slices.
	 */
	public long currentSlice(long now) {
		return -1;
	}

	/**
	 * Return whether the key serves a penalty under this limit at {@code now}.
	 */
	public boolean penalized(long now) {
		return this.penaltyEnds > now;
	}

	/**
	 * Return the time from {@code now} until the key's penalty ends, 0 when it serves
	 * none.
	 */
	public long penaltyLeft(long now) {
		return Math.max(0, this.penaltyEnds - now);
	}

	/**
	 * Start a penalty of {@code penalty} at {@code now}: the limit rejected a call.
	 * @return when the penalty ends
	 */
	public long penalize(long now, long penalty) {
		this.penaltyEnds = now + penalty;
		return this.penaltyEnds;
	}

	/** Return the time at which the window will count nothing. */
	public abstract long expiresAt();

}
