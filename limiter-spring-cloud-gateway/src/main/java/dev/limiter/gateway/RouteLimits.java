package dev.limiter.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.limiter.AbstractRateLimiter;
import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.autoconfigure.LimiterProperties;
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
	 * @param properties the application's Limiter properties, with the named limits
	 * @return the limits
	 * @throws IllegalArgumentException naming the argument to fix
	 */
	static RouteLimits of(String routeId, GatewayRateLimiter.Config config, LimiterProperties properties) {
		String route = "route '" + routeId + "': ";
		Algorithm algorithm = (config.getAlgorithm() != null) ? config.getAlgorithm() : properties.getAlgorithm();
		if ((config.getAlgorithm() != null || config.getSlices() != null) && !inline(config)) {
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
			limits.add(named(route, name, properties.getLimits(), properties.getAlgorithm(), config));
		}
		boolean inline = inline(config);
		if (inline) {
			if (config.getThreshold() == null || config.getPeriod() == null) {
				throw new IllegalArgumentException(route + "limiter.threshold and limiter.period go together, but only "
						+ ((config.getThreshold() == null) ? "limiter.period" : "limiter.threshold")
						+ " is given. Give both, such as limiter.threshold: 10 and limiter.period: 1m.");
			}
			limits.add(checked(route, "limiter.threshold/limiter.period",
					() -> withSettings(Limit.of(routeId, config.getThreshold(), config.getPeriod()), algorithm,
							config)));
		}
		if (limits.isEmpty()) {
			throw new IllegalArgumentException(route + "the RequestRateLimiter filter uses limiterRateLimiter but "
					+ "gives no limit. Add limiter.threshold and limiter.period, or limiter.name naming a limit under "
					+ "limiter.limits.");
		}
		try {
			AbstractRateLimiter.validate("key", config.getPermits(), limits);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					route + "limiter.permits: " + ex.getMessage() + ". Lower limiter.permits, or raise the threshold.");
		}
		String scope = (names.size() == 1 && !inline) ? "n:" + RateLimitKeys.bounded(names.get(0))
				: "r:" + RateLimitKeys.bounded(routeId);
		return new RouteLimits(routeId, scope, config.getPermits(), List.copyOf(limits));
	}

	/**
	 * Return the key of a caller on this route.
	 * @param caller what the route's key resolver gave
	 * @return the key
	 */
	String key(String caller) {
		return this.scope + ":" + RateLimitKeys.bounded(caller);
	}

	private static Limit named(String route, String name, Map<String, LimiterProperties.NamedLimit> namedLimits,
			Algorithm defaultAlgorithm, GatewayRateLimiter.Config config) {
		LimiterProperties.NamedLimit configured = namedLimits.get(name);
		if (configured == null || configured.getThreshold() == null || configured.getPeriod() == null) {
			throw new IllegalArgumentException(route + "limiter.name '" + name + "' is not defined with a threshold "
					+ "and a period. Define limiter.limits." + name + ".threshold and limiter.limits." + name
					+ ".period, or correct the name.");
		}
		if (Boolean.TRUE.equals(configured.getShadow())) {
			throw new IllegalArgumentException(route + "limit '" + name + "' is a shadow limit " + "(limiter.limits."
					+ name + ".shadow), which gateway routes do not support: the route would "
					+ "enforce it. Set limiter.limits." + name + ".shadow to false, or use another limit.");
		}
		// A named limit keeps its own settings; the route's failure policy applies where
		// it
		// sets none.
		Algorithm own = (configured.getAlgorithm() != null) ? configured.getAlgorithm() : defaultAlgorithm;
		GatewayRateLimiter.Config settings = new GatewayRateLimiter.Config();
		settings.setSlices(configured.getSlices());
		settings.setFailurePolicy(
				(configured.getFailurePolicy() != null) ? configured.getFailurePolicy() : config.getFailurePolicy());
		long local = (configured.getLocalThreshold() != null) ? configured.getLocalThreshold() : 0;
		return checked(route, "limiter.limits." + name,
				() -> withSettings(Limit.of(name, configured.getThreshold(), configured.getPeriod()), own, settings)
					.withLocalThreshold(local));
	}

	private static boolean inline(GatewayRateLimiter.Config config) {
		return config.getThreshold() != null || config.getPeriod() != null;
	}

	private static Limit withSettings(Limit limit, Algorithm algorithm, GatewayRateLimiter.Config config) {
		int slices = (config.getSlices() != null) ? config.getSlices() : Limit.DEFAULT_SLICES;
		if (slices != Limit.DEFAULT_SLICES && algorithm != Algorithm.SLIDING_BUCKETS) {
			throw new IllegalArgumentException("slices = " + slices + " is given to a " + algorithm.text()
					+ " limit; slices cut a sliding-buckets window: remove slices, or set the algorithm to "
					+ "sliding-buckets");
		}
		return limit.withAlgorithm(algorithm).withSlices(slices).withFailurePolicy(config.getFailurePolicy());
	}

	private static Limit checked(String route, String source, java.util.function.Supplier<Limit> limit) {
		try {
			return limit.get();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(route + source + ": " + ex.getMessage());
		}
	}

}
