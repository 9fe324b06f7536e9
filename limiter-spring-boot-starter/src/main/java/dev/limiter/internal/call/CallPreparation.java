package dev.limiter.internal.call;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Limit;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.internal.LogText;
import dev.limiter.internal.key.CurrentRequest;
import dev.limiter.internal.limits.LimitOverrides;
import dev.limiter.key.RateLimitKeyResolver;

/**
 * Prepares every call of a rate-limited method the same way, whichever stack serves it:
 * the plan picks the numbers, the condition decides whether the call counts at all, then
 * the key says whose counters it takes. The blocking path, the reactive path and the
 * early answer of cached rejections all start here, so a rule added to one is added to
 * all; they differ only in how they wait for the store and how they answer.
 */
final class CallPreparation {

	private static final Object[] NO_ARGUMENTS = {};

	// The aspect's category, where users already look for (and tune) these warnings.
	private static final Logger logger = LoggerFactory.getLogger(RateLimitAspect.class);

	/**
	 * Limiter's own resolvers of the default key, one per stack: any other is the
	 * application's, which surfaces that are no web request (gRPC, GraphQL, Spring AI)
	 * ask too, before their own caller.
	 */
	private static final Set<String> LIMITERS_RESOLVERS = Set.of(
			"dev.limiter.internal.web.servlet.ServletRateLimitKeyResolver",
			"dev.limiter.internal.web.reactive.ServerWebExchangeRateLimitKeyResolver",
			"dev.limiter.internal.key.MethodRateLimitKeyResolver");

	private final RateLimitKeyResolver keyResolver;

	private final boolean applicationResolver;

	private final LimitOverrides overrides;

	/** The operations under overridden numbers, derived once per override. */
	private final Map<Overridden, AnnotatedOperation> overridden = new ConcurrentHashMap<>();

	private final Set<String> keyFailuresLogged = ConcurrentHashMap.newKeySet();

	private final Set<String> unknownPlansLogged = ConcurrentHashMap.newKeySet();

	private final Set<String> chargeFailuresLogged = ConcurrentHashMap.newKeySet();

	CallPreparation(RateLimitKeyResolver keyResolver, LimitOverrides overrides) {
		this.keyResolver = keyResolver;
		this.applicationResolver = !LIMITERS_RESOLVERS.contains(keyResolver.getClass().getName());
		this.overrides = overrides;
		overrides.onChange(this.overridden::clear);
	}

	/**
	 * Prepare a call: its plan's operation, its condition and its key.
	 * @param operation the method's operation
	 * @param targetClass the class of the target object
	 * @param arguments the call's arguments
	 * @param request the current request
	 * @return the prepared call, or {@code null} when its condition says it is not
	 * limited
	 */
	PreparedCall prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments,
			CurrentRequest request) {
		RateLimitInvocation invocation = new RateLimitInvocation(operation, targetClass, arguments, request);
		String plan = plan(operation, invocation);
		AnnotatedOperation planned = planned(operation, plan);
		if (planned != operation) {
			invocation = invocation.withOperation(planned);
		}
		KeyExpression condition = planned.getCondition();
		if (condition != null && !condition.test(invocation)) {
			return null;
		}
		return overridden(planned, plan, planned != operation, invocation, key(planned, invocation));
	}

	/**
	 * Prepare a request on a gateway route: its plan's numbers, then those set at run
	 * time, and the key of its caller, or of its key expression where a surface gives one
	 * (a GraphQL budget's {@code limiter.graphql.key}); a route has no condition.
	 * @param route the route's operation
	 * @param plan the request's plan, or {@code null}
	 * @param caller the caller, already bounded, such as {@code u:alice}; unused, and may
	 * be {@code null}, for a {@link SurfaceRequest}, whose caller is found by the one
	 * rule
	 * @param request the request, for listeners that write to it, or {@code null}
	 * @return the prepared call
	 */
	PreparedCall prepareRoute(AnnotatedOperation route, String plan, String caller, Object request) {
		AnnotatedOperation planned = planned(route, plan);
		RateLimitInvocation invocation = new RateLimitInvocation(planned, null, NO_ARGUMENTS, () -> request);
		String key = (route.getKeyExpression() != null) ? key(planned, invocation)
				: route.key((request instanceof SurfaceRequest surface) ? surfaceCaller(surface, invocation) : caller);
		return overridden(planned, plan, planned != route, invocation, key);
	}

	/**
	 * Return the call under the numbers set at run time for it, if any: the caller's own,
	 * else its plan's, else its named limit's; nothing is done per call when none is set.
	 */
	private PreparedCall overridden(AnnotatedOperation planned, String plan, boolean configuredPlan,
			RateLimitInvocation invocation, String key) {
		if (!this.overrides.isEmpty()) {
			List<Limit> limits = this.overrides.apply(planned.getLimits(), plan, configuredPlan, key);
			if (limits != planned.getLimits()) {
				AnnotatedOperation overridden = this.overridden.computeIfAbsent(new Overridden(planned, limits),
						(k) -> planned.withLimits(limits));
				return new PreparedCall(overridden, invocation.withOperation(overridden), key);
			}
		}
		return new PreparedCall(planned, invocation, key);
	}

	/**
	 * Prepare a call before its arguments exist, such as before Spring MVC resolves them:
	 * only for methods whose limits and key read no argument.
	 * @param operation the method's operation
	 * @param targetClass the class of the target object
	 * @param request the current request
	 * @return the prepared call, or {@code null} when the call needs its arguments
	 */
	PreparedCall prepareWithoutArguments(AnnotatedOperation operation, Class<?> targetClass, CurrentRequest request) {
		if (!keysWithoutArguments() || !operation.decidesWithoutArguments()) {
			return null;
		}
		return prepare(operation, targetClass, NO_ARGUMENTS, request);
	}

	/**
	 * Return whether the default key can be known without a call's arguments, which the
	 * early answer of cached rejections asks before it looks up the method's operation.
	 * @return whether the key resolver reads no argument
	 */
	boolean keysWithoutArguments() {
		return !this.keyResolver.readsArguments();
	}

	/**
	 * Return the call's plan, {@code null} without plans or when its expression fails.
	 */
	private static String plan(AnnotatedOperation operation, RateLimitInvocation invocation) {
		if (operation.getPlan() == null) {
			return null;
		}
		try {
			return operation.getPlan().text(invocation);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Return the call under its plan's numbers, when the method has plans. A plan the
	 * configuration does not define, or an expression that fails, gets the limits' own
	 * numbers, never no limit; logged once per method.
	 */
	private AnnotatedOperation planned(AnnotatedOperation operation, String plan) {
		if (operation.getPlans().isEmpty() || (plan == null && operation.getPlan() == null)) {
			return operation;
		}
		AnnotatedOperation planned = operation.forPlan(plan);
		if (planned == operation && this.unknownPlansLogged.add(operation.getDescription())
				&& !this.overrides.named().values().stream().anyMatch((o) -> o.plans().containsKey(plan))) {
			logger.warn(
					"Plan '{}' of {} is not defined under limiter.limits; the call is limited by the limits' own "
							+ "numbers. Later unknown plans of this method are not logged.",
					LogText.oneLine(plan), operation.getDescription());
		}
		return planned;
	}

	private String key(AnnotatedOperation operation, RateLimitInvocation invocation) {
		return (operation.getKeyExpression() != null) ? evaluateKey(operation, invocation)
				: defaultKey(operation, invocation);
	}

	/**
	 * The method and its caller; a surface that is not a web request knows its caller.
	 */
	private String defaultKey(AnnotatedOperation operation, RateLimitInvocation invocation) {
		return operation.key((invocation.request() instanceof SurfaceRequest surface)
				? surfaceCaller(surface, invocation) : this.keyResolver.resolveKey(invocation));
	}

	/**
	 * The caller of a surface that is not a web request, by one rule for every such
	 * surface: the one the call names itself, else the application's own key resolver's
	 * (when it has one and it answers), else the surface's ({@code Callers}: the
	 * principal, the address, everyone).
	 */
	private String surfaceCaller(SurfaceRequest surface, RateLimitInvocation invocation) {
		if (this.applicationResolver && !surface.namesCaller()) {
			try {
				String caller = this.keyResolver.resolveKey(invocation);
				if (caller != null && !caller.isBlank()) {
					return surface.qualified(caller);
				}
			}
			catch (RuntimeException ex) {
				// a resolver written for web requests may not know this surface: the
				// surface's own caller then
				logger.debug("The application's key resolver gave no caller for {}; its own caller is used",
						invocation.operation().getDescription(), ex);
			}
		}
		return surface.caller();
	}

	/**
	 * Evaluate the key expression; when it fails or gives nothing, fall back to the
	 * default key (the method and the user).
	 * <p>
	 * The failure policy is not applied here on purpose: it answers "the store is down",
	 * not "a client sent something odd". Admitting the call would let a client bypass the
	 * limit by leaving out what the key reads (a header, a parameter), and rejecting it
	 * would turn a bug in the expression into an outage. The default key still limits the
	 * caller. The error is logged once per method as a warning, then at debug level.
	 */
	private String evaluateKey(AnnotatedOperation operation, RateLimitInvocation invocation) {
		try {
			return operation.getKeyExpression().evaluate(invocation);
		}
		catch (RuntimeException ex) {
			String message = "Rate-limit key '" + operation.getKeySource() + "' of " + operation.getDescription()
					+ " could not be evaluated (" + LogText.oneLine(ex.getMessage())
					+ "); the call is limited under the default key (the method and the user) instead";
			if (this.keyFailuresLogged.add(operation.getDescription())) {
				logger.warn(message + ". Later failures of this key are logged at debug level.");
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(message, ex);
			}
			return defaultKey(operation, invocation);
		}
	}

	/**
	 * Return what a call turned out to cost, from its operation's charge expression on
	 * its result, at most the largest threshold.
	 * <p>
	 * An expression that fails, or gives a negative number or something else than a
	 * number, leaves the reservation as it is: logged once per method as a warning, then
	 * at debug level (a {@code null}, as a stream's elements before the last may give, is
	 * not logged).
	 * @param prepared the call
	 * @param result what the method returned, or one element of its stream
	 * @return the cost in permits, or {@code -1} when there is none to settle
	 */
	long cost(PreparedCall prepared, Object result) {
		AnnotatedOperation operation = prepared.operation();
		KeyExpression charge = operation.getCharge();
		if (charge == null) {
			return -1;
		}
		Object value;
		try {
			value = charge.value(prepared.invocation(), result);
		}
		catch (RuntimeException ex) {
			chargeFailed(operation, "could not be evaluated (" + ex.getMessage() + ")", ex);
			return -1;
		}
		if (value == null) {
			return -1;
		}
		if (!(value instanceof Number number) || number.doubleValue() < 0 || Double.isNaN(number.doubleValue())) {
			chargeFailed(operation, "gave " + value + ", not a number of permits", null);
			return -1;
		}
		return (long) Math.min(Math.ceil(number.doubleValue()), Limit.MAX_THRESHOLD);
	}

	private void chargeFailed(AnnotatedOperation operation, String problem, RuntimeException ex) {
		String message = "Rate-limit charge '" + operation.getCharge().source() + "' of " + operation.getDescription()
				+ " " + LogText.oneLine(problem) + "; the call keeps the " + operation.getPermits()
				+ " permits it reserved";
		if (this.chargeFailuresLogged.add(operation.getDescription())) {
			logger.warn(message + ". Later failures of this charge are logged at debug level.");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message, ex);
		}
	}

	/**
	 * A call ready for the store: the operation whose numbers apply (its plan's, if any),
	 * the key it counts under and the permits it takes.
	 *
	 * @param operation the operation that applies
	 * @param invocation the call under that operation
	 * @param key the key
	 * @param permits the permits it reserves: the operation's, or the cost a surface
	 * computed for this call (a GraphQL document's points)
	 */
	record PreparedCall(AnnotatedOperation operation, RateLimitInvocation invocation, String key, long permits) {

		PreparedCall(AnnotatedOperation operation, RateLimitInvocation invocation, String key) {
			this(operation, invocation, key, operation.getPermits());
		}

		/** The same call reserving other permits, at least one. */
		PreparedCall withPermits(long permits) {
			return new PreparedCall(this.operation, this.invocation, this.key,
					Math.max(1, Math.min(permits, Limit.MAX_THRESHOLD)));
		}

	}

	/** An operation and the limits that overrides give it. */
	private record Overridden(AnnotatedOperation operation, List<Limit> limits) {
	}

}
