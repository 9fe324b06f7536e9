package dev.limiter.internal.web.servlet;

import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.util.UrlPathHelper;

import dev.limiter.call.RateLimitInvocation;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.key.RateLimitKeyResolver;
import dev.limiter.key.RateLimitKeys;
import dev.limiter.web.PathStyle;

/**
 * The default {@link RateLimitKeyResolver} of servlet web applications: who sends the
 * current request, such as {@code u:alice}.
 * <p>
 * The caller is the authenticated principal's name ({@code u:}), otherwise the client
 * address ({@code ip:}) from {@link HttpServletRequest#getRemoteAddr()}. Proxy headers
 * such as {@code X-Forwarded-For} are never read here, because a client can set them:
 * behind a trusted proxy, let Spring rewrite the remote address
 * ({@code server.forward-headers-strategy} or {@code ForwardedHeaderFilter}).
 * <p>
 * What is called is not part of the caller: the key already starts with the handler
 * method (or the limit's name), so GET and HEAD, a path variable or another pattern of
 * the same handler all count on one quota. With {@link PathStyle#URI} the request's path
 * is added, for a quota per path: decoded, without matrix parameters, with dot segments,
 * double and trailing slashes resolved, so that no other spelling of one path (such as
 * {@code %72}, {@code ;v=1} or {@code /a//b/}) is a fresh quota. Parts a client controls
 * are bounded by {@link RateLimitKeys#bounded(String)}. Outside a web request every
 * caller shares the limit ({@value MethodRateLimitKeyResolver#ALL_CALLERS}).
 */
public class ServletRateLimitKeyResolver implements RateLimitKeyResolver {

	private final PathStyle pathStyle;

	private final boolean readsArguments;

	/**
	 * Create a resolver.
	 * @param pathStyle whether the request URI is part of the key
	 */
	public ServletRateLimitKeyResolver(PathStyle pathStyle) {
		if (pathStyle == null) {
			throw new IllegalArgumentException("pathStyle must not be null");
		}
		this.pathStyle = pathStyle;
		// A subclass that replaces resolveKey may read the arguments; one that only
		// refines the caller or the path sees the request alone.
		this.readsArguments = ReflectionUtils.findMethod(getClass(), "resolveKey", RateLimitInvocation.class)
			.getDeclaringClass() != ServletRateLimitKeyResolver.class;
	}

	/**
	 * Return {@code false}: the key comes from the request alone, unless a subclass
	 * replaces {@link #resolveKey}.
	 */
	@Override
	public boolean readsArguments() {
		return this.readsArguments;
	}

	@Override
	public String resolveKey(RateLimitInvocation invocation) {
		HttpServletRequest request = invocation.request(HttpServletRequest.class);
		if (request == null) {
			return MethodRateLimitKeyResolver.ALL_CALLERS;
		}
		String caller = caller(request);
		return (this.pathStyle == PathStyle.URI) ? caller + ":" + RateLimitKeys.bounded(path(request)) : caller;
	}

	/**
	 * Return the request's path within the application in one spelling.
	 * @param request the request
	 * @return the path, such as {@code /orders/42}
	 */
	protected String path(HttpServletRequest request) {
		return RateLimitKeys.onePath(UrlPathHelper.defaultInstance.getPathWithinApplication(request));
	}

	/**
	 * Return who calls: the principal's name, otherwise the client address.
	 * @param request the request
	 * @return the caller part of the key
	 */
	protected String caller(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		return RateLimitKeys.caller((principal != null) ? principal.getName() : null, request.getRemoteAddr());
	}

}
