package dev.limiter.internal.web.reactive;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import org.springframework.util.ReflectionUtils;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.UriUtils;

import dev.limiter.call.RateLimitInvocation;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.key.RateLimitKeyResolver;
import dev.limiter.key.RateLimitKeys;
import dev.limiter.web.PathStyle;

/**
 * The default {@link RateLimitKeyResolver} of WebFlux applications, with the same rules
 * as the servlet one: the principal's name ({@code u:}), otherwise the client address
 * ({@code ip:}, never a proxy header), and with {@link PathStyle#URI} the request's path
 * in one spelling. Outside a request every caller shares the limit.
 */
public class ServerWebExchangeRateLimitKeyResolver implements RateLimitKeyResolver {

	private static final Pattern MATRIX_PARAMETERS = Pattern.compile(";[^/]*");

	private final PathStyle pathStyle;

	private final boolean readsArguments;

	/**
	 * Create a resolver.
	 * @param pathStyle whether the request path is part of the key
	 */
	public ServerWebExchangeRateLimitKeyResolver(PathStyle pathStyle) {
		if (pathStyle == null) {
			throw new IllegalArgumentException("pathStyle must not be null");
		}
		this.pathStyle = pathStyle;
		// A subclass that replaces resolveKey may read the arguments; one that only
		// refines the caller or the path sees the exchange alone.
		this.readsArguments = ReflectionUtils.findMethod(getClass(), "resolveKey", RateLimitInvocation.class)
			.getDeclaringClass() != ServerWebExchangeRateLimitKeyResolver.class;
	}

	/**
	 * Return {@code false}: the key comes from the exchange alone, unless a subclass
	 * replaces {@link #resolveKey}.
	 */
	@Override
	public boolean readsArguments() {
		return this.readsArguments;
	}

	@Override
	public String resolveKey(RateLimitInvocation invocation) {
		ServerWebExchange exchange = invocation.request(ServerWebExchange.class);
		if (exchange == null) {
			return MethodRateLimitKeyResolver.ALL_CALLERS;
		}
		String caller = caller(exchange);
		return (this.pathStyle == PathStyle.URI) ? caller + ":" + RateLimitKeys.bounded(path(exchange)) : caller;
	}

	/**
	 * Return the request's path within the application in one spelling.
	 * @param exchange the exchange
	 * @return the path, such as {@code /orders/42}
	 */
	protected String path(ServerWebExchange exchange) {
		String raw = exchange.getRequest().getPath().pathWithinApplication().value();
		return RateLimitKeys
			.onePath(UriUtils.decode(MATRIX_PARAMETERS.matcher(raw).replaceAll(""), StandardCharsets.UTF_8));
	}

	/**
	 * Return who calls: the principal's name, otherwise the client address.
	 * @param exchange the exchange
	 * @return the caller part of the key
	 */
	protected String caller(ServerWebExchange exchange) {
		InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
		String address = (remote == null) ? "unknown"
				: (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
		return RateLimitKeys.caller(exchange.getAttribute(ServerWebExchangeCurrentRequest.PRINCIPAL_NAME), address);
	}

}
