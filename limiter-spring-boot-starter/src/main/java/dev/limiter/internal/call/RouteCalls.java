package dev.limiter.internal.call;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

import dev.limiter.Limit;
import dev.limiter.internal.limits.InvalidLimitException;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LocalLimit;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.ResolvedLimit;
import dev.limiter.key.RateLimitKeys;

/**
 * The requests of gateway routes, whichever gateway serves them, decided as annotated
 * calls are: a route is an operation of the operation source (listed, read, reset and
 * overridden through the {@code ratelimits} endpoint), its requests are prepared under
 * their plan's and the operators' numbers, and every decision is told to the listeners
 * (metrics, headers), the observer and the list of the callers rejected most. Limits in
 * shadow mode decide after the enforced ones and never reject.
 */
public final class RouteCalls {

	private final LimitResolver resolver;

	private final RateLimitOperationSource operations;

	private final CallPipeline pipeline;

	/**
	 * Create the route calls.
	 * @param resolver resolves the routes' limits, with the named limits of the
	 * configuration
	 * @param operations where routes are registered beside the annotated methods
	 * @param pipeline decides the routes' requests, as it decides annotated calls
	 */
	public RouteCalls(LimitResolver resolver, RateLimitOperationSource operations, CallPipeline pipeline) {
		if (resolver == null || operations == null || pipeline == null) {
			throw new IllegalArgumentException("resolver, operations and pipeline must not be null");
		}
		this.resolver = resolver;
		this.operations = operations;
		this.pipeline = pipeline;
	}

	/**
	 * Build, check and register the operation of a route from its filter arguments,
	 * replacing an earlier one of the same route.
	 * @param routeId the route
	 * @param arguments the route's arguments
	 * @return the route's operation
	 * @throws IllegalArgumentException naming the route and the argument to fix
	 */
	public AnnotatedOperation register(String routeId, RouteArguments arguments) {
		return register(routeId, arguments, "");
	}

	/**
	 * Build, check and register the operation of a route whose caller a resolver of the
	 * gateway finds, which the endpoint names as the route's key.
	 * @param routeId the route
	 * @param arguments the route's arguments
	 * @param key how the route finds its caller, such as {@code key-resolver
	 * #{@userKeyResolver}}, or empty for the default key
	 * @return the route's operation
	 * @throws IllegalArgumentException naming the route and the argument to fix
	 */
	public AnnotatedOperation register(String routeId, RouteArguments arguments, String key) {
		return register(routeId, arguments, key, null);
	}

	/**
	 * Build, check and register the operation of a surface whose requests are keyed by an
	 * expression over the surface's variables.
	 * @param routeId the operation's name
	 * @param arguments its arguments
	 * @param key the key expression as written, or empty for the default key
	 * @param expression the parsed key expression, or {@code null} for the default key
	 * @return the operation
	 * @throws IllegalArgumentException naming what to fix
	 */
	AnnotatedOperation register(String routeId, RouteArguments arguments, String key, KeyExpression expression) {
		AnnotatedOperation route = operation(routeId, arguments, (key != null) ? key : "", expression,
				"route '" + routeId + "'");
		this.operations.register(route);
		return route;
	}

	/**
	 * Prepare one request of a route: its plan's numbers, those set at run time, and its
	 * caller's key.
	 * @param route the route's operation
	 * @param caller the caller, already bounded ({@link RateLimitKeys#bounded}), such as
	 * what the route's key resolver gave or {@code ip:10.0.0.1}
	 * @param plan the request's plan, or {@code null}
	 * @param request the request, for listeners that write to it, or {@code null}
	 * @return the call's handle
	 */
	public CallHandle prepare(AnnotatedOperation route, String caller, String plan, Object request) {
		return this.pipeline.handle(this.pipeline.prepareRoute(route, plan, caller, request));
	}

	/**
	 * Build and check the operation of a route or of another operation configured by
	 * name, without registering it.
	 * @param routeId the operation's name, which its scope is made of when its limits do
	 * not share a name
	 * @param arguments its arguments
	 * @param key the key expression as written, or empty for the default key
	 * @param expression the parsed key expression, or {@code null} for the default key
	 * @param description how the endpoint and errors name it, such as
	 * {@code route 'orders'}
	 * @return the operation
	 * @throws IllegalArgumentException naming what to fix
	 */
	AnnotatedOperation operation(String routeId, RouteArguments arguments, String key, KeyExpression expression,
			String description) {
		String route = arguments.spelling().source(routeId);
		boolean inline = arguments.hasOwnLimit();
		if ((arguments.algorithm() != null || arguments.slices() != null) && !inline) {
			String argument = arguments.argument((arguments.algorithm() != null) ? "algorithm" : "slices");
			throw new IllegalArgumentException(route + argument + " applies to the limit of "
					+ arguments.argument("threshold") + " and " + arguments.argument("period")
					+ ", which the route does not give; a named limit takes it from limiter.limits.<name>. Remove "
					+ argument + ", or add " + arguments.argument("threshold") + " and " + arguments.argument("period")
					+ ".");
		}
		List<ResolvedLimit> resolved = new ArrayList<>();
		List<String> names = new ArrayList<>(arguments.names());
		for (String name : arguments.names()) {
			// A named limit keeps its own settings; the route's failure policy applies
			// where it sets none.
			LimitAttributes declared = new LimitAttributes(name, null, null, null, null, arguments.failurePolicy(),
					null, null, java.util.Map.of());
			resolved.add(resolved(route + "limiter.limits." + name,
					() -> this.resolver.resolve(declared, arguments.spelling())));
		}
		if (inline) {
			if (arguments.threshold() == null || arguments.period() == null) {
				throw new IllegalArgumentException(route + arguments.argument("threshold") + " and "
						+ arguments.argument("period") + " go together, but only "
						+ arguments.argument((arguments.threshold() == null) ? "period" : "threshold")
						+ " is given. Give both, such as " + arguments.argument("threshold") + ": 10 and "
						+ arguments.argument("period") + ": 1m.");
			}
			LimitAttributes own = new LimitAttributes(routeId, arguments.threshold(), arguments.period(),
					arguments.algorithm(), arguments.slices(), arguments.failurePolicy(), null, arguments.shadow(),
					java.util.Map.of());
			resolved.add(resolved(route + arguments.argument("threshold") + "/" + arguments.argument("period"),
					() -> this.resolver.resolveOwn(own, arguments.spelling())));
			// The route's own limit carries no shared name.
			names.add("");
		}
		if (resolved.isEmpty()) {
			throw new IllegalArgumentException(route + "the route's Limiter filter gives no limit. Add "
					+ arguments.argument("threshold") + " and " + arguments.argument("period") + ", or "
					+ arguments.argument("name") + " naming a limit under limiter.limits.");
		}
		List<Limit> limits = resolved.stream().map(ResolvedLimit::limit).toList();
		checkPermits(route, arguments, limits, null);
		Duration maxWait = maxWait(route, arguments);
		String scope = LimitResolver.scope(names, "r:" + RateLimitKeys.bounded(routeId));
		List<Boolean> shadows = resolved.stream().map(ResolvedLimit::shadow).toList();
		List<String> messages = Collections.nCopies(limits.size(), "");
		AnnotatedOperation operation = new AnnotatedOperation(null, scope, description, limits, messages,
				arguments.permits(), key, expression)
			.withOutcomes(null, List.of(), shadows)
			.withMaxWait(maxWait)
			.withGate(gate(route, resolved, null));
		java.util.Map<String, AnnotatedOperation> plans = new java.util.LinkedHashMap<>();
		java.util.Set<String> planNames = new java.util.LinkedHashSet<>();
		resolved.forEach((limit) -> planNames.addAll(limit.plans().keySet()));
		for (String plan : planNames) {
			List<Limit> planLimits = resolved.stream().map((limit) -> limit.forPlan(plan)).toList();
			checkPermits(route, arguments, planLimits, plan);
			plans.put(plan,
					new AnnotatedOperation(null, scope, description, planLimits, messages, arguments.permits(), key,
							expression)
						.withOutcomes(null, List.of(), shadows)
						.withMaxWait(maxWait)
						.withGate(gate(route, resolved, plan)));
		}
		return plans.isEmpty() ? operation : operation.withPlans(null, plans);
	}

	private static LocalLimit.Gate gate(String route, List<ResolvedLimit> resolved, String plan) {
		try {
			return LocalLimit.gate(resolved, plan);
		}
		catch (InvalidLimitException ex) {
			throw new IllegalArgumentException(route + ex.getMessage());
		}
	}

	private static Duration maxWait(String route, RouteArguments arguments) {
		Duration wait = arguments.maxWait();
		if (wait == null) {
			return Duration.ZERO;
		}
		if (wait.isNegative() || wait.compareTo(RateLimitAnnotationParser.MAX_WAIT) > 0) {
			throw new IllegalArgumentException(route + arguments.argument("max-wait") + " is " + wait.toMillis()
					+ "ms, not a duration between 0 and " + RateLimitAnnotationParser.MAX_WAIT.toSeconds()
					+ "s. Set it to how long a request may wait for its turn, such as " + arguments.argument("max-wait")
					+ ": 500ms, or remove it to reject at once.");
		}
		return wait;
	}

	private static void checkPermits(String route, RouteArguments arguments, List<Limit> limits, String plan) {
		try {
			LimitResolver.checkPermits(arguments.permits(), limits, arguments.spelling());
		}
		catch (InvalidLimitException ex) {
			throw new IllegalArgumentException(route + arguments.argument("permits") + ": " + ex.getMessage()
					+ ((plan != null) ? " under plan '" + plan + "'" : ""));
		}
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
