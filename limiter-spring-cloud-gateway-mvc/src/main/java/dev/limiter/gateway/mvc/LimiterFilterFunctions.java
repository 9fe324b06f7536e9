package dev.limiter.gateway.mvc;

import java.time.Duration;
import java.util.function.Function;

import org.springframework.cloud.gateway.server.mvc.common.Configurable;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.context.ApplicationContext;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import dev.limiter.call.RouteLimitSettings;

/**
 * Limiter as a filter function of Spring Cloud Gateway Server MVC routes, from the Java
 * DSL ({@code .filter(limiter(10, Duration.ofSeconds(1)))}) and from route configuration
 * ({@code filters: - name: Limiter}): the same limits, keys, headers, 429 and 503 as
 * {@code @RateLimit}, every limit of a route taken in one atomic decision per request.
 * <p>
 * A route's requests are decided as annotated calls are: under their plan's and the
 * operators' numbers, in the {@code limiter.decisions} metrics and
 * {@code limiter.decision} observations, and listed by the {@code ratelimits} endpoint.
 */
public abstract class LimiterFilterFunctions {

	private LimiterFilterFunctions() {
	}

	/**
	 * Limit each caller of the route to a number of requests per period: a limit of the
	 * route's own, named after the route.
	 * @param threshold the most requests per period for each caller
	 * @param period the window, such as {@code Duration.ofMinutes(1)}
	 * @return the filter
	 */
	public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(long threshold, Duration period) {
		Config config = new Config();
		config.setThreshold(threshold);
		config.setPeriod(period);
		return limiter(config);
	}

	/**
	 * Limit the route as a configuration says: named limits, a limit of its own, the key
	 * and the plan of each request. Route configuration binds a {@code Limiter} filter's
	 * arguments into one, or takes {@code threshold} and {@code period} in its short form
	 * ({@code - Limiter=10,1s}).
	 * @param config the route's limits
	 * @return the filter
	 */
	@Shortcut({ "threshold", "period" })
	@Configurable
	public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(Config config) {
		if (config == null) {
			throw new IllegalArgumentException("config must not be null");
		}
		return new LimiterFilter(config);
	}

	/**
	 * Offers {@link #limiter(Config)} to route configuration as the {@code Limiter}
	 * filter.
	 */
	public static class FilterSupplier extends SimpleFilterSupplier {

		/** Create the supplier. */
		public FilterSupplier() {
			super(LimiterFilterFunctions.class);
		}

	}

	/**
	 * The arguments of one route's {@code Limiter} filter: {@code threshold},
	 * {@code period}, {@code algorithm}, {@code slices}, {@code name},
	 * {@code failure-policy}, {@code permits}, {@code shadow}, {@code max-wait} (as for
	 * every route, {@link RouteLimitSettings}), {@code key-resolver} and
	 * {@code plan-resolver}.
	 */
	public static class Config extends RouteLimitSettings {

		/**
		 * Name of a {@code Function<ServerRequest, String>} bean that gives each request
		 * its key; the principal's name, else the client address, when not set or when it
		 * gives nothing.
		 */
		private String keyResolver;

		/**
		 * Name of a {@code Function<ServerRequest, String>} bean that gives each request
		 * its plan, for the plans of the route's named limits.
		 */
		private String planResolver;

		private Function<ServerRequest, String> key;

		private Function<ServerRequest, String> plan;

		public String getKeyResolver() {
			return this.keyResolver;
		}

		public void setKeyResolver(String keyResolver) {
			this.keyResolver = keyResolver;
		}

		public String getPlanResolver() {
			return this.planResolver;
		}

		public void setPlanResolver(String planResolver) {
			this.planResolver = planResolver;
		}

		/**
		 * Give each request its key from the Java DSL, in place of a {@code keyResolver}
		 * bean.
		 * @param key the key of a request, or {@code null} or empty for the default key
		 * @return this configuration
		 */
		public Config key(Function<ServerRequest, String> key) {
			this.key = key;
			return this;
		}

		/**
		 * Give each request its plan from the Java DSL, in place of a
		 * {@code planResolver} bean.
		 * @param plan the plan of a request, or {@code null} for the limits' own numbers
		 * @return this configuration
		 */
		public Config plan(Function<ServerRequest, String> plan) {
			this.plan = plan;
			return this;
		}

		Function<ServerRequest, String> key() {
			return this.key;
		}

		Function<ServerRequest, String> plan() {
			return this.plan;
		}

	}

	/**
	 * The filter of one route: the route's limits live in the application context that
	 * serves the request, found once per context.
	 */
	private static final class LimiterFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

		private final Config config;

		private volatile Bound bound;

		LimiterFilter(Config config) {
			this.config = config;
		}

		@Override
		public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
			ApplicationContext context = MvcUtils.getApplicationContext(request);
			Bound current = this.bound;
			if (current == null || current.context() != context) {
				current = new Bound(context, context.getBean(MvcRouteLimits.class));
				this.bound = current;
			}
			return current.limits().filter(this.config, request, next);
		}

	}

	private record Bound(ApplicationContext context, MvcRouteLimits limits) {
	}

}
