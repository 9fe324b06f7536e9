package dev.limiter;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Base class for {@link RateLimiter} implementations: validates the arguments of every
 * call, before anything is recorded, and folds limits that share a window.
 */
public abstract class AbstractRateLimiter implements RateLimiter {

	@Override
	public final Decision acquire(String key, long permits, List<Limit> limits) {
		return doAcquire(key, permits, validate(key, permits, limits));
	}

	/**
	 * Decide on a validated call.
	 * @param key the key, not blank
	 * @param permits the permits, 1 to the smallest threshold
	 * @param limits at least one limit, no two sharing a window
	 * @return the decision
	 */
	protected abstract Decision doAcquire(String key, long permits, List<Limit> limits);

	/**
	 * Check the arguments of a call.
	 * @param key the key
	 * @param permits the permits
	 * @param limits the limits
	 * @return the limits without duplicates of the same window
	 * @throws IllegalArgumentException naming the argument and its allowed range
	 */
	public static List<Limit> validate(String key, long permits, List<Limit> limits) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be null or blank");
		}
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("limits must contain at least one limit");
		}
		long smallest = Long.MAX_VALUE;
		List<Limit> distinct = null;
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			if (limit == null) {
				throw new IllegalArgumentException("limits must not contain null");
			}
			smallest = Math.min(smallest, limit.threshold());
			for (int j = 0; j < i; j++) {
				if (limits.get(j).sameWindowAs(limit)) {
					distinct = (distinct != null) ? distinct : new ArrayList<>(limits.subList(0, i));
					break;
				}
			}
			if (distinct != null && !containsWindow(distinct, limit)) {
				distinct.add(limit);
			}
		}
		if (permits < 1 || permits > smallest) {
			throw new IllegalArgumentException(
					"permits must be between 1 and the smallest threshold (" + smallest + "), was " + permits);
		}
		return (distinct != null) ? List.copyOf(distinct) : limits;
	}

	/**
	 * Return a clock's reading in microseconds since the epoch, the unit of time inside
	 * the stores.
	 * @param clock the clock
	 * @return the current time in microseconds
	 */
	protected static long epochMicros(Clock clock) {
		Instant instant = clock.instant();
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
	}

	/**
	 * Return a duration of microseconds, negative values taken as zero.
	 * @param micros the microseconds
	 * @return the duration
	 */
	protected static Duration ofMicros(long micros) {
		return Duration.ofNanos(Math.multiplyExact(Math.max(0, micros), 1_000L));
	}

	private static boolean containsWindow(List<Limit> limits, Limit limit) {
		for (Limit candidate : limits) {
			if (candidate.sameWindowAs(limit)) {
				return true;
			}
		}
		return false;
	}

}
