package dev.limiter.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.limiter.Limit;
import dev.limiter.internal.limits.InvalidLimitException;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.internal.limits.ResolvedLimit;
import dev.limiter.key.RateLimitKeys;

/**
 * The limits of one gateway route, checked when the route is built: the named limits of
 * {@code limiter.name} and the limit of {@code limiter.threshold} and
 * {@code limiter.period}, all taken in one all-or-nothing decision per request.
 *
 * @param routeId the route
 * @param scope what the counters belong to: {@code n:<name>} for a route that uses one
 * named limit and nothing else (shared with every other user of that name, on purpose),
 * otherwise {@code r:<route id>}
 * @param permits the permits each request takes
 * @param limits the limits
 */
record RouteLimits(String routeId, String scope, long permits, List<Limit> limits) {

	/**
	 * Build and check the limits of a route from its filter arguments.
	 * @param routeId the route
	 * @param config the route's {@code limiter.*} arguments
	 * @param resolver resolves the limits, with the named limits of the configuration
	 * @return the limits
	 * @throws IllegalArgumentException naming the argument to fix
	 */
	static RouteLimits of(String routeId, GatewayRateLimiter.Config config, LimitResolver resolver) {
		String route = "route '" + routeId + "': ";
		boolean inline = config.getThreshold() != null || config.getPeriod() != null;
		if ((config.getAlgorithm() != null || config.getSlices() != null) && !inline) {
			String argument = (config.getAlgorithm() != null) ? "limiter.algorithm" : "limiter.slices";
			throw new IllegalArgumentException(route + argument + " applies to the limit of limiter.threshold and "
					+ "limiter.period, which the route does not give; a named limit takes it from "
					+ "limiter.limits.<name>. Remove " + argument + ", or add limiter.threshold and limiter.period.");
		}
		List<Limit> limits = new ArrayList<>();
		List<String> names = new ArrayList<>();
		for (String name : config.getName()) {
			if (!name.isBlank()) {
				names.add(name.trim());
			}
		}
		for (String name : names) {
			// A named limit keeps its own settings; the route's failure policy applies
			// where it sets none.
			LimitAttributes declared = new LimitAttributes(name, null, null, null, null, config.getFailurePolicy(),
					null, null, Map.of());
			ResolvedLimit limit = resolved(route + "limiter.limits." + name,
					() -> resolver.resolve(declared, Spelling.ROUTE));
			if (limit.shadow()) {
				throw new IllegalArgumentException(route + "limit '" + name + "' is a shadow limit (limiter.limits."
						+ name + ".shadow), which gateway routes do not support: the route would enforce it. Set "
						+ "limiter.limits." + name + ".shadow to false, or use another limit.");
			}
			limits.add(limit.limit());
		}
		if (inline) {
			if (config.getThreshold() == null || config.getPeriod() == null) {
				throw new IllegalArgumentException(route + "limiter.threshold and limiter.period go together, but only "
						+ ((config.getThreshold() == null) ? "limiter.period" : "limiter.threshold")
						+ " is given. Give both, such as limiter.threshold: 10 and limiter.period: 1m.");
			}
			LimitAttributes own = new LimitAttributes(routeId, config.getThreshold(), config.getPeriod(),
					config.getAlgorithm(), config.getSlices(), config.getFailurePolicy(), null, null, Map.of());
			limits.add(
					resolved(route + "limiter.threshold/limiter.period", () -> resolver.resolveOwn(own, Spelling.ROUTE))
						.limit());
			// The route's own limit carries no shared name.
			names.add("");
		}
		if (limits.isEmpty()) {
			throw new IllegalArgumentException(route + "the RequestRateLimiter filter uses limiterRateLimiter but "
					+ "gives no limit. Add limiter.threshold and limiter.period, or limiter.name naming a limit under "
					+ "limiter.limits.");
		}
		try {
			LimitResolver.checkPermits(config.getPermits(), limits, Spelling.ROUTE);
		}
		catch (InvalidLimitException ex) {
			throw new IllegalArgumentException(route + "limiter.permits: " + ex.getMessage());
		}
		String scope = LimitResolver.scope(names, "r:" + RateLimitKeys.bounded(routeId));
		return new RouteLimits(routeId, scope, config.getPermits(), List.copyOf(limits));
	}

	/**
	 * Return the key of a caller on this route.
	 * @param caller what the route's key resolver gave
	 * @return the key
	 */
	String key(String caller) {
		return RateLimitKeys.key(this.scope, RateLimitKeys.bounded(caller));
	}

	private static ResolvedLimit resolved(String source, Supplier<ResolvedLimit> limit) {
		try {
			return limit.get();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(source + ": " + ex.getMessage());
		}
	}

}
