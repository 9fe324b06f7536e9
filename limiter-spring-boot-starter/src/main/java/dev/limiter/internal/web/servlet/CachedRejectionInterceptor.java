package dev.limiter.internal.web.servlet;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.ApplicationContext;
import org.springframework.web.bind.support.WebBindingInitializer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitAspect;
import dev.limiter.internal.web.EarlyRejections;
import dev.limiter.internal.web.RequestArguments;

/**
 * Answers a caller whom the limiter already knows to be over a handler method's limits
 * before Spring MVC resolves the method's arguments ({@link EarlyRejections}): the same
 * rejection the method would throw, resolved into the same 429, without calling through
 * the method's proxy. When the key, condition or plan reads arguments, they are read from
 * the request where Spring MVC would bind them as they stand ({@link RequestArguments}: a
 * {@code String} request parameter, path variable or header); the others, such as a body,
 * are never resolved, and a method whose limits read anything else is left to the call.
 * <p>
 * Registered last among the application's interceptors, so that those the application
 * adds (a locale change, an authentication check) still run first. A rejection known here
 * is one the rejection cache remembers; every other call goes on to the method, where
 * {@link RateLimitAspect} decides as before. What a caller can see: a request that would
 * fail argument resolution or validation (a 400) gets the 429 when its caller is blocked.
 */
public class CachedRejectionInterceptor implements HandlerInterceptor {

	private final EarlyRejections early;

	/**
	 * Create the interceptor, for methods whose limits read no argument.
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * so that the store is not created with the handler mappings
	 */
	public CachedRejectionInterceptor(Supplier<CallPipeline> pipeline) {
		this(pipeline, null);
	}

	/**
	 * Create the interceptor, which also answers methods whose limits read arguments that
	 * Spring MVC binds from the request as it stands ({@link RequestArguments}).
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * so that the store is not created with the handler mappings
	 * @param context the context of the application's controller advice and Spring MVC's
	 * binding, or {@code null} for methods whose limits read no argument only
	 */
	public CachedRejectionInterceptor(Supplier<CallPipeline> pipeline, ApplicationContext context) {
		this.early = new EarlyRejections(pipeline, context, () -> initializers(context));
	}

	private static List<WebBindingInitializer> initializers(ApplicationContext context) {
		return (context != null) ? context.getBeansOfType(RequestMappingHandlerAdapter.class)
			.values()
			.stream()
			.map(RequestMappingHandlerAdapter::getWebBindingInitializer)
			.toList() : List.of();
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		// A request's first dispatch only: an async dispatch carries the result of a call
		// that was already admitted, whatever the cache has learnt since.
		if (request.getDispatcherType() == DispatcherType.REQUEST && handler instanceof HandlerMethod handlerMethod) {
			this.early.reject(handlerMethod, new ServletArguments(request), null);
		}
		return true;
	}

	/** The request as Spring MVC binds a handler's {@code String} arguments from it. */
	private record ServletArguments(HttpServletRequest request) implements RequestArguments.Request {

		@Override
		public List<String> parameter(String name) {
			// A multipart request may carry the parameter as a part, which Spring MVC
			// resolves besides.
			String type = this.request.getContentType();
			if (type != null && type.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
				return null;
			}
			String[] values = this.request.getParameterValues(name);
			return (values != null) ? List.of(values) : null;
		}

		@Override
		public Map<?, ?> pathVariables() {
			return (this.request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE) instanceof Map<?, ?> map)
					? map : null;
		}

		@Override
		public List<String> header(String name) {
			return (this.request.getHeaders(name) != null) ? Collections.list(this.request.getHeaders(name)) : null;
		}

	}

}
