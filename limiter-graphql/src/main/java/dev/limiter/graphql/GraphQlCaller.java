package dev.limiter.graphql;

import java.net.InetSocketAddress;
import java.security.Principal;

import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebSocketGraphQlRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.key.RateLimitKeys;

/**
 * A GraphQL operation as Limiter's keys see it: the caller is the authenticated principal
 * (of the WebSocket session, of Spring Security's reactive context, or of the servlet
 * request's thread), else the client's address; a key expression reads the request's HTTP
 * headers (of the WebSocket handshake over WebSocket) as {@code #headers}.
 */
final class GraphQlCaller implements SurfaceRequest {

	private static final boolean SECURITY = ClassUtils.isPresent(
			"org.springframework.security.core.context.SecurityContextHolder", GraphQlCaller.class.getClassLoader());

	private final String caller;

	private final WebGraphQlRequest request;

	GraphQlCaller(String caller, WebGraphQlRequest request) {
		this.caller = caller;
		this.request = request;
	}

	/** Find who sends a request, without blocking. */
	static Mono<String> of(WebGraphQlRequest request) {
		String address = address(request);
		Mono<String> principal;
		if (request instanceof WebSocketGraphQlRequest socket) {
			principal = socket.getSessionInfo().getPrincipal().map(Principal::getName);
		}
		else if (SECURITY) {
			// read on the calling thread: a servlet request's thread holds its context
			// here
			String current = Security.name();
			principal = (current != null) ? Mono.just(current) : Security.reactiveName();
		}
		else {
			principal = Mono.empty();
		}
		return principal.map((name) -> RateLimitKeys.caller(name, address))
			.defaultIfEmpty(RateLimitKeys.caller(null, address));
	}

	private static String address(WebGraphQlRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		if (remote == null) {
			return "unknown";
		}
		return (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
	}

	@Override
	public String caller() {
		return this.caller;
	}

	@Override
	public Object variable(String name) {
		return "headers".equals(name) ? this.request.getHeaders() : null;
	}

	/** Read apart, so that an application without Spring Security never loads it. */
	private static final class Security {

		static String name() {
			return name(SecurityContextHolder.getContext().getAuthentication());
		}

		static Mono<String> reactiveName() {
			return ReactiveSecurityContextHolder.getContext()
				.mapNotNull((context) -> name(context.getAuthentication()));
		}

		private static String name(Authentication authentication) {
			// the anonymous token of an open endpoint is nobody: callers then go by
			// address
			return (authentication != null && authentication.isAuthenticated()
					&& !(authentication instanceof AnonymousAuthenticationToken)) ? authentication.getName() : null;
		}

	}

}
