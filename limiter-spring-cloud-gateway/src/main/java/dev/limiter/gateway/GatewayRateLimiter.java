package dev.limiter.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.limiter.Decision;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.call.RouteLimitSettings;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RouteArguments;
import dev.limiter.internal.call.RouteCalls;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.ReactiveDecisions;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.key.RateLimitKeys;

/**
 * Limiter as the rate limiter of Spring Cloud Gateway's {@code RequestRateLimiter}
 * filter: each route's {@code limiter.*} arguments give its limits, all taken in one
 * atomic decision per request, answered with the same headers as annotated methods.
 * Routes are decided as annotated calls are: under their plans and the operators'
 * overrides, in the {@code limiter.decisions} metrics and {@code limiter.decision}
 * observations, and listed by the {@code ratelimits} endpoint.
 * <p>
 * A rejection raises {@link dev.limiter.RateLimitExceededException} (a fail-closed limit
 * that cannot reach its store {@link RateLimitUnavailableException}), which
 * {@link GatewayRateLimitExceptionHandler} answers like every other Limiter 429 (or 503):
 * the quota headers, {@code Retry-After} and an {@code application/problem+json} body.
 * The filter's {@code status-code} argument does not apply to them.
 */
public class GatewayRateLimiter
		extends org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter<GatewayRateLimiter.Config> {

	/** The prefix of the route arguments, as in {@code limiter.threshold}. */
	public static final String CONFIGURATION_PROPERTY_NAME = "limiter";

	/** The name of the bean that routes refer to: {@code #{@limiterRateLimiter}}. */
	public static final String BEAN_NAME = "limiterRateLimiter";

	private static final Response ADMITTED_UNTOLD = new Response(true, Map.of());

	private final RouteCalls calls;

	private final RateLimitHeaders headers;

	private final Map<String, Route> routes = new ConcurrentHashMap<>();

	private volatile boolean slotsInFlight;

	private final org.springframework.beans.factory.ListableBeanFactory beans;

	/**
	 * Create the rate limiter.
	 * @param calls decides the routes' requests, as annotated calls are decided
	 * @param headers the header writer
	 * @param configurationService binds the route arguments
	 */
	GatewayRateLimiter(RouteCalls calls, RateLimitHeaders headers, ConfigurationService configurationService) {
		this(calls, headers, configurationService, null);
	}

	/**
	 * Create the rate limiter.
	 * @param calls decides the routes' requests, as annotated calls are decided
	 * @param headers the header writer
	 * @param configurationService binds the route arguments
	 * @param beans finds the names of the routes' key resolvers, or {@code null}
	 */
	GatewayRateLimiter(RouteCalls calls, RateLimitHeaders headers, ConfigurationService configurationService,
			org.springframework.beans.factory.ListableBeanFactory beans) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.beans = beans;
		if (calls == null || headers == null) {
			throw new IllegalArgumentException("calls and headers must not be null");
		}
		this.calls = calls;
		this.headers = headers;
	}

	/**
	 * Bind and check a route's arguments when the gateway builds the route; an error
	 * names the argument, and the gateway leaves the route out.
	 */
	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		super.onApplicationEvent(event);
		Config config = getConfig().get(event.getRouteId());
		if (config == null || !hasOwnArguments(event.getArgs())) {
			return;
		}
		this.routes.remove(event.getRouteId());
		AnnotatedOperation operation = this.calls.register(event.getRouteId(),
				RouteArguments.of(config, Spelling.ROUTE), keyResolver(event.getArgs().get("key-resolver")));
		this.routes.put(event.getRouteId(), new Route(operation, config.getPlanResolver()));
		if (operation.holdsSlots()) {
			this.slotsInFlight = true;
		}
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		Route route = this.routes.get(routeId);
		if (route == null) {
			return Mono.error(new IllegalStateException("Route '" + routeId + "' uses " + BEAN_NAME
					+ " but its RequestRateLimiter filter gives no limiter.threshold/limiter.period or limiter.name "
					+ "argument"));
		}
		// decided as every reactive surface decides: never on the threads that read
		// Redis's replies
		return plan(route).flatMap((plan) -> {
			CallHandle call = this.calls.prepare(route.operation(), RateLimitKeys.bounded(id), plan.orElse(null), null);
			return ReactiveDecisions.decided(call)
				.flatMap((answer) -> response(call, answer).flatMap((response) -> held(call, response)))
				.defaultIfEmpty(ADMITTED_UNTOLD);
		});
	}

	/**
	 * Hand an admitted request that holds slots in flight to {@link RouteCallEnds}, which
	 * ends it when the exchange is finished; without the exchange (no context filter) it
	 * could never be ended, so it is ended at once.
	 */
	private Mono<Response> held(CallHandle call, Response response) {
		if (!call.holdsSlots()) {
			return Mono.just(response);
		}
		return Mono.deferContextual((context) -> {
			ServerWebExchange exchange = ServerWebExchangeContextFilter.getExchange(context).orElse(null);
			if (exchange != null) {
				RouteCallEnds.hold(exchange, call);
				return Mono.just(response);
			}
			return Mono.fromFuture(() -> call.endAsync(null)).thenReturn(response);
		});
	}

	/**
	 * Return whether a route counts calls in flight, whose requests must be ended.
	 * @return whether any route's limits hold slots
	 */
	boolean holdsSlots() {
		return this.slotsInFlight;
	}

	/**
	 * Return the calls of the routes, which end requests in flight.
	 * @return the route calls
	 */
	RouteCalls calls() {
		return this.calls;
	}

	/**
	 * Return the operation of a route, or {@code null} for a route that does not use this
	 * rate limiter.
	 */
	AnnotatedOperation route(String routeId) {
		Route route = this.routes.get(routeId);
		return (route != null) ? route.operation() : null;
	}

	/**
	 * Return the plan of the request being served, from the route's plan resolver, which
	 * reads the exchange that the starter's context filter puts in the Reactor context.
	 */
	private static Mono<Optional<String>> plan(Route route) {
		if (route.planResolver() == null || route.operation().getPlans().isEmpty()) {
			return Mono.just(Optional.empty());
		}
		return Mono.deferContextual((context) -> Mono.justOrEmpty(ServerWebExchangeContextFilter.getExchange(context)))
			.flatMap(route.planResolver()::resolve)
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty());
	}

	/**
	 * Answer a decided request: admitted with its quota headers (nothing when only shadow
	 * limits decided: its client is told nothing), or refused.
	 */
	private Mono<Response> response(CallHandle call, boolean admitted) {
		Map<String, String> values = new LinkedHashMap<>();
		if (admitted) {
			Decision decision = call.decision();
			if (decision == null) {
				return Mono.empty();
			}
			this.headers.writeAdmitted(decision, values::put);
			return Mono.just(new Response(true, values));
		}
		// Answered by GatewayRateLimitExceptionHandler with the same status, headers and
		// problem as every surface of Limiter; the filter's own answer has no body.
		return Mono.error(call.rejection());
	}

	/**
	 * Name the route's key resolver as the endpoint shows the route's key: the filter's
	 * argument arrives as the resolver itself, so its bean is looked up by identity.
	 */
	private String keyResolver(Object resolver) {
		if (resolver == null) {
			return "";
		}
		if (resolver instanceof String text) {
			return "key-resolver " + text;
		}
		if (this.beans != null) {
			for (Map.Entry<String, org.springframework.cloud.gateway.filter.ratelimit.KeyResolver> bean : this.beans
				.getBeansOfType(org.springframework.cloud.gateway.filter.ratelimit.KeyResolver.class)
				.entrySet()) {
				if (bean.getValue() == resolver) {
					return "key-resolver #{@" + bean.getKey() + "}";
				}
			}
		}
		return "key-resolver";
	}

	private boolean hasOwnArguments(Map<String, Object> args) {
		for (String name : args.keySet()) {
			if (name.startsWith(CONFIGURATION_PROPERTY_NAME + ".")) {
				return true;
			}
		}
		return false;
	}

	/** A route's operation and how its requests find their plan. */
	private record Route(AnnotatedOperation operation, PlanResolver planResolver) {
	}

	/**
	 * The {@code limiter.*} arguments of one route's {@code RequestRateLimiter} filter:
	 * {@code limiter.threshold}, {@code limiter.period}, {@code limiter.algorithm},
	 * {@code limiter.slices}, {@code limiter.name}, {@code limiter.failure-policy},
	 * {@code limiter.permits}, {@code limiter.shadow}, {@code limiter.max-wait} (as for
	 * every route, {@link RouteLimitSettings}) and {@code limiter.plan-resolver}.
	 */
	public static class Config extends RouteLimitSettings {

		/**
		 * Resolves the plan of a request, such as {@code #{@planResolver}}, for the plans
		 * of the route's named limits ({@code limiter.limits.<name>.plans}); without one,
		 * or for a plan no limit defines, the limits' own numbers apply.
		 */
		private PlanResolver planResolver;

		public PlanResolver getPlanResolver() {
			return this.planResolver;
		}

		public void setPlanResolver(PlanResolver planResolver) {
			this.planResolver = planResolver;
		}

	}

}
