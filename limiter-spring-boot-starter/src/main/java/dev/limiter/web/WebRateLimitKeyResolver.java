package dev.limiter.web;

import java.lang.reflect.Method;
import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.HandlerMapping;

import dev.limiter.aop.RateLimitKeyResolver;
import dev.limiter.aop.RateLimitKeys;

/**
 * The default {@link RateLimitKeyResolver} of servlet web applications: the user and the
 * route of the current request, such as {@code u:alice:GET /orders/{id}}.
 * <p>
 * The user is the authenticated principal's name ({@code u:}), otherwise the client
 * address ({@code ip:}) from {@link HttpServletRequest#getRemoteAddr()}. Proxy headers
 * such as {@code X-Forwarded-For} are never read here, because a client can set them:
 * behind a trusted proxy, let Spring rewrite the remote address
 * ({@code server.forward-headers-strategy} or {@code ForwardedHeaderFilter}).
 * <p>
 * The route is the HTTP method and the matched handler pattern, so that varying a path
 * variable neither bypasses a limit nor multiplies keys; with {@link PathStyle#URI} it is
 * the raw request URI. Parts a client controls are bounded by
 * {@link RateLimitKeys#bounded(String)}. Outside a web request, or without a matched
 * pattern, the method's key is used.
 */
public class WebRateLimitKeyResolver implements RateLimitKeyResolver {

	private final PathStyle pathStyle;

	/**
	 * Create a resolver.
	 * @param pathStyle how the route is named
	 */
	public WebRateLimitKeyResolver(PathStyle pathStyle) {
		if (pathStyle == null) {
			throw new IllegalArgumentException("pathStyle must not be null");
		}
		this.pathStyle = pathStyle;
	}

	@Override
	public String resolveKey(Method method, Class<?> targetClass, Object[] arguments) {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			return RateLimitKeys.methodKey(method);
		}
		HttpServletRequest request = servlet.getRequest();
		String route = route(request);
		if (route == null) {
			return caller(request) + ":" + RateLimitKeys.methodKey(method);
		}
		return caller(request) + ":" + RateLimitKeys.bounded(request.getMethod()) + " " + route;
	}

	/**
	 * Return who calls: the principal's name, otherwise the client address.
	 * @param request the request
	 * @return the caller part of the key
	 */
	protected String caller(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		if (principal != null && principal.getName() != null && !principal.getName().isEmpty()) {
			return "u:" + RateLimitKeys.bounded(principal.getName());
		}
		return "ip:" + RateLimitKeys.bounded(request.getRemoteAddr());
	}

	/**
	 * Return what is called: the matched pattern or the URI.
	 * @param request the request
	 * @return the route part of the key, or {@code null} if unknown
	 */
	protected String route(HttpServletRequest request) {
		if (this.pathStyle == PathStyle.URI) {
			return RateLimitKeys.bounded(request.getRequestURI());
		}
		Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
		// Patterns come from the application's mappings, not from the client, but they
		// are
		// still bounded to keep keys short.
		return (pattern != null) ? RateLimitKeys.bounded(pattern.toString()) : null;
	}

}
