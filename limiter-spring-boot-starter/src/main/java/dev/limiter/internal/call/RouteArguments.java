package dev.limiter.internal.call;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.call.RouteLimitSettings;
import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.internal.limits.LimitResolver.Spelling;

/**
 * What a gateway route's filter arguments say of its limits, whichever gateway: the named
 * limits it takes and the limit of its own.
 *
 * @param threshold the most requests per period of the route's own limit, or {@code null}
 * @param period the window of the route's own limit, or {@code null}
 * @param algorithm the algorithm of the route's own limit, or {@code null} for the
 * application's
 * @param slices the slices of a sliding-buckets own limit, or {@code null}
 * @param names the named limits under {@code limiter.limits} the route also takes
 * @param failurePolicy what the route does while the store is unavailable, or
 * {@code null}; named limits that set their own keep theirs
 * @param permits the permits each request takes
 * @param shadow whether the route's own limit only watches, or {@code null}
 * @param maxWait how long a request whose turn comes within it waits instead of being
 * rejected, or {@code null} for none
 * @param spelling how the gateway spells the arguments, for errors
 */
public record RouteArguments(Long threshold, Duration period, Algorithm algorithm, Integer slices, List<String> names,
		FailurePolicy failurePolicy, long permits, Boolean shadow, Duration maxWait, Spelling spelling) {

	public RouteArguments {
		List<String> trimmed = new ArrayList<>();
		if (names != null) {
			for (String name : names) {
				if (name != null && !name.isBlank()) {
					trimmed.add(name.trim());
				}
			}
		}
		names = List.copyOf(trimmed);
	}

	/**
	 * Return what a route's filter arguments say, as either gateway binds them.
	 * @param settings the route's settings
	 * @param spelling how the gateway spells the arguments, for errors
	 * @return the arguments
	 */
	public static RouteArguments of(RouteLimitSettings settings, Spelling spelling) {
		return new RouteArguments(settings.getThreshold(), settings.getPeriod(), settings.getAlgorithm(),
				settings.getSlices(), settings.getName(), settings.getFailurePolicy(), settings.getPermits(),
				settings.getShadow(), settings.getMaxWait(), spelling);
	}

	/** Return whether the route gives a limit of its own. */
	boolean hasOwnLimit() {
		return this.threshold != null || this.period != null;
	}

	/** Return how the gateway spells an argument, such as {@code limiter.threshold}. */
	String argument(String name) {
		return this.spelling.attribute(name);
	}

}
