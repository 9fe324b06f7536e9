package dev.limiter.gateway.mvc;

import java.io.IOException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import dev.limiter.gateway.mvc.LimiterFilterFunctions.Config;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RouteArguments;
import dev.limiter.internal.call.RouteCalls;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.internal.web.RateLimitResponses;
import dev.limiter.internal.web.servlet.ServletRejections;
import dev.limiter.key.RateLimitKeys;

/**
 * The limits of one application's Gateway Server MVC routes: the routes of the
 * configuration are built and checked when the application starts, so that a bad argument
 * stops the start naming the route; a route of the Java DSL on its first request. Each
 * request is decided on the thread that serves it.
 */
final class MvcRouteLimits implements SmartInitializingSingleton {

	/** The filter's name in route configuration, as the gateway looks it up. */
	static final String FILTER = "limiter";

	// The gateway's own names of a short form's values: - Limiter=10,1s.
	private static final String GENERATED_KEY = "_genkey_";

	private static final List<String> SHORTCUT = List.of("threshold", "period");

	private static final String ARGUMENTS = "args";

	private final RouteCalls calls;

	private final RateLimitResponses responses;

	private final BeanFactory beans;

	private final ObjectProvider<GatewayMvcProperties> properties;

	private final Map<String, Route> routes = new ConcurrentHashMap<>();

	private final ServletRejections rejections = new ServletRejections();

	private volatile HttpMessageConverter<?> problemWriter;

	/**
	 * Whether the gateway's own response flushed the first problem it wrote (the server
	 * then chunks it; Spring Framework 6.2 does, 7 does not), {@code null} until then.
	 */
	private volatile Boolean flushes;

	MvcRouteLimits(RouteCalls calls, RateLimitResponses responses, BeanFactory beans,
			ObjectProvider<GatewayMvcProperties> properties) {
		this.calls = calls;
		this.responses = responses;
		this.beans = beans;
		this.properties = properties;
	}

	@Override
	public void afterSingletonsInstantiated() {
		GatewayMvcProperties gateway = this.properties.getIfAvailable();
		if (gateway == null) {
			return;
		}
		List<RouteProperties> configured = new ArrayList<>(gateway.getRoutes());
		gateway.getRoutesMap().forEach((id, route) -> {
			if (route.getId() == null) {
				route.setId(id);
			}
			configured.add(route);
		});
		for (RouteProperties route : configured) {
			for (FilterProperties filter : route.getFilters()) {
				if (filter.getName() != null && filter.getName().toLowerCase(Locale.ROOT).equals(FILTER)) {
					this.routes.put(route.getId(), route(route.getId(), config(filter.getArgs())));
				}
			}
		}
	}

	/**
	 * Decide a request of a route and answer a rejection as {@code @RateLimit} does, or
	 * pass it on; the quota headers of an admitted request are written by the starter's
	 * listener, on the servlet response that the gateway's response is added to.
	 */
	ServerResponse filter(Config config, ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		String routeId = MvcUtils.getAttribute(request, MvcUtils.GATEWAY_ROUTE_ID_ATTR);
		if (routeId == null) {
			throw new IllegalStateException("A Limiter filter runs on a route without an id: build the route with "
					+ "GatewayRouterFunctions.route(\"<id>\"), whose id names its counters");
		}
		Route route = this.routes.get(routeId);
		if (route == null) {
			route = this.routes.computeIfAbsent(routeId, (id) -> route(id, config));
		}
		String plan = (route.plan() != null && !route.operation().getPlans().isEmpty()) ? route.plan().apply(request)
				: null;
		CallHandle call = this.calls.prepare(route.operation(), caller(route, request), plan, request.servletRequest());
		if (call.decide()) {
			if (!call.holdsSlots()) {
				return next.handle(request);
			}
			ServerResponse response;
			try {
				response = next.handle(request);
			}
			catch (Exception | Error ex) {
				call.end(ex);
				throw ex;
			}
			// the upstream's status tells an adaptive limit an overloaded backend
			return new FinishedResponse(response, () -> call.end(null, response.statusCode().value()));
		}
		HttpHeaders headers = new HttpHeaders();
		ProblemDetail problem = this.responses.answer(call.rejection(), request.servletRequest().getRequestURI(),
				headers::add);
		return new RejectionResponse(problem, headers);
	}

	/**
	 * Return the converter that writes a problem as {@code application/problem+json}
	 * among a response's converters, as the gateway's own response would pick it; the
	 * first found is kept.
	 */
	private HttpMessageConverter<?> problemWriter(List<HttpMessageConverter<?>> converters) {
		HttpMessageConverter<?> writer = this.problemWriter;
		if (writer == null) {
			for (HttpMessageConverter<?> converter : converters) {
				if (ServletRejections.writesProblems(converter)) {
					this.problemWriter = converter;
					return converter;
				}
			}
		}
		return writer;
	}

	/**
	 * Return whether the gateway's own response would write a problem as
	 * {@code application/problem+json} for this request: it asks for no type, or accepts
	 * JSON.
	 */
	private static boolean acceptsProblemJson(HttpServletRequest request) {
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		if (accept == null || accept.isBlank()) {
			return true;
		}
		try {
			for (MediaType type : MediaType.parseMediaTypes(accept)) {
				if (type.includes(MediaType.APPLICATION_PROBLEM_JSON) || type.equals(MediaType.APPLICATION_JSON)) {
					return true;
				}
			}
		}
		catch (RuntimeException ex) {
			return false;
		}
		return false;
	}

	/**
	 * The answer to a rejected request: written straight to the servlet response with the
	 * bytes the gateway's converter made once per distinct problem, as the gateway's own
	 * response to the same problem would be (status, headers, {@code Content-Length});
	 * for a request that asks for another type, that response itself.
	 */
	private final class RejectionResponse implements ServerResponse {

		private final ProblemDetail problem;

		private final HttpHeaders headers;

		private final MultiValueMap<String, Cookie> cookies = new LinkedMultiValueMap<>();

		RejectionResponse(ProblemDetail problem, HttpHeaders headers) {
			this.problem = problem;
			this.headers = headers;
		}

		@Override
		public HttpStatusCode statusCode() {
			return HttpStatusCode.valueOf(this.problem.getStatus());
		}

		// Spring Framework 6.2's ServerResponse (Boot 3.5) still declares it.
		@SuppressWarnings({ "deprecation", "removal" })
		public int rawStatusCode() {
			return this.problem.getStatus();
		}

		@Override
		public HttpHeaders headers() {
			return this.headers;
		}

		@Override
		public MultiValueMap<String, Cookie> cookies() {
			return this.cookies;
		}

		@Override
		public ModelAndView writeTo(HttpServletRequest request, HttpServletResponse response, Context context)
				throws ServletException, IOException {
			HttpMessageConverter<?> converter = problemWriter(context.messageConverters());
			Boolean flushes = MvcRouteLimits.this.flushes;
			boolean direct = converter != null && this.cookies.isEmpty() && acceptsProblemJson(request);
			if (!direct || flushes == null) {
				// the gateway's own response; the first one watched for how it frames it
				FlushWatch watched = new FlushWatch(response);
				ModelAndView written = ServerResponse.status(this.problem.getStatus())
					.headers((headers) -> headers.addAll(this.headers))
					.cookies((cookies) -> cookies.addAll(this.cookies))
					.body(this.problem)
					.writeTo(request, direct ? watched : response, context);
				if (direct) {
					MvcRouteLimits.this.flushes = watched.flushed;
				}
				return written;
			}
			response.setStatus(this.problem.getStatus());
			this.headers.forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
			MvcRouteLimits.this.rejections.write(this.problem, MediaType.APPLICATION_PROBLEM_JSON, response, converter,
					flushes);
			return null;
		}

	}

	/**
	 * Return the caller of a request: the key resolver's value, else the principal's
	 * name, else the client address, as the starter's default key.
	 */
	private static String caller(Route route, ServerRequest request) {
		String key = (route.key() != null) ? route.key().apply(request) : null;
		if (key != null && !key.isBlank()) {
			return RateLimitKeys.bounded(key);
		}
		String principal = request.principal().map(Principal::getName).orElse(null);
		return RateLimitKeys.caller(principal, request.servletRequest().getRemoteAddr());
	}

	private Route route(String routeId, Config config) {
		String key = (config.key() != null) ? "key-resolver (Java DSL)"
				: (config.getKeyResolver() != null && !config.getKeyResolver().isBlank())
						? "key-resolver " + config.getKeyResolver().trim() : "";
		AnnotatedOperation operation = this.calls.register(routeId, RouteArguments.of(config, Spelling.FILTER), key);
		return new Route(operation, resolver(routeId, "key-resolver", config.key(), config.getKeyResolver()),
				resolver(routeId, "plan-resolver", config.plan(), config.getPlanResolver()));
	}

	@SuppressWarnings("unchecked")
	private Function<ServerRequest, String> resolver(String routeId, String argument,
			Function<ServerRequest, String> given, String beanName) {
		if (given != null || beanName == null || beanName.isBlank()) {
			return given;
		}
		try {
			return this.beans.getBean(beanName.trim(), Function.class);
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new IllegalArgumentException("route '" + routeId + "': " + argument + " '" + beanName
					+ "' names no bean of type Function<ServerRequest, String>. Define one, such as @Bean "
					+ "Function<ServerRequest, String> " + beanName.trim() + "(), or remove " + argument + ".");
		}
	}

	/**
	 * Bind a configured filter's arguments as the gateway binds them into the filter's
	 * configuration (a value that does not convert has stopped the start there already,
	 * naming it).
	 */
	private static Config config(Map<String, String> args) {
		Map<String, String> named = new LinkedHashMap<>();
		args.forEach((name, value) -> {
			String key = name;
			if (name.startsWith(GENERATED_KEY)) {
				int index = Integer.parseInt(name.substring(GENERATED_KEY.length()));
				key = (index < SHORTCUT.size()) ? SHORTCUT.get(index) : name;
			}
			named.put(ARGUMENTS + "." + key, value);
		});
		return new Binder(new MapConfigurationPropertySource(named)).bindOrCreate(ARGUMENTS, Config.class);
	}

	/** A route's operation and how its requests find their key and plan. */
	private record Route(AnnotatedOperation operation, Function<ServerRequest, String> key,
			Function<ServerRequest, String> plan) {
	}

	/**
	 * The upstream's response, which ends the request's call in flight once it is written
	 * (or fails to be): the slot is held while the body streams to the client.
	 */
	/** A response that notes whether what is written to it is flushed. */
	private static final class FlushWatch extends HttpServletResponseWrapper {

		private volatile boolean flushed;

		private ServletOutputStream stream;

		FlushWatch(HttpServletResponse response) {
			super(response);
		}

		@Override
		public void flushBuffer() throws IOException {
			this.flushed = true;
			super.flushBuffer();
		}

		@Override
		public ServletOutputStream getOutputStream() throws IOException {
			if (this.stream == null) {
				ServletOutputStream out = super.getOutputStream();
				this.stream = new ServletOutputStream() {

					@Override
					public void write(int b) throws IOException {
						out.write(b);
					}

					@Override
					public void write(byte[] b, int off, int len) throws IOException {
						out.write(b, off, len);
					}

					@Override
					public void flush() throws IOException {
						FlushWatch.this.flushed = true;
						out.flush();
					}

					@Override
					public void close() throws IOException {
						out.close();
					}

					@Override
					public boolean isReady() {
						return out.isReady();
					}

					@Override
					public void setWriteListener(WriteListener listener) {
						out.setWriteListener(listener);
					}

				};
			}
			return this.stream;
		}

	}

	private static final class FinishedResponse implements ServerResponse {

		private final ServerResponse response;

		private final Runnable finish;

		FinishedResponse(ServerResponse response, Runnable finish) {
			this.response = response;
			this.finish = finish;
		}

		@Override
		public HttpStatusCode statusCode() {
			return this.response.statusCode();
		}

		// Spring Framework 6.2's ServerResponse (Boot 3.5) still declares it.
		@SuppressWarnings({ "deprecation", "removal" })
		public int rawStatusCode() {
			return this.response.statusCode().value();
		}

		@Override
		public HttpHeaders headers() {
			return this.response.headers();
		}

		@Override
		public MultiValueMap<String, Cookie> cookies() {
			return this.response.cookies();
		}

		@Override
		public ModelAndView writeTo(HttpServletRequest request, HttpServletResponse response, Context context)
				throws ServletException, IOException {
			try {
				return this.response.writeTo(request, response, context);
			}
			finally {
				this.finish.run();
			}
		}

	}

}
