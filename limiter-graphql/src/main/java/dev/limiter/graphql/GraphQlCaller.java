package dev.limiter.graphql;

import java.net.InetSocketAddress;
import java.security.Principal;

import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebSocketGraphQlRequest;
import reactor.core.publisher.Mono;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.internal.key.Callers;
import dev.limiter.internal.key.ReactiveCallers;

/**
 * A GraphQL operation as Limiter's keys see it: the caller is the principal of the
 * WebSocket session, else as {@link Callers} finds it (Spring Security's principal of the
 * servlet request's thread or of the reactive context, else the client's address, else
 * {@code all}); a key expression reads the request's HTTP headers (of the WebSocket
 * handshake over WebSocket) as {@code #headers}.
 */
final class GraphQlCaller implements SurfaceRequest {

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
		else {
			// read on the calling thread: a servlet request's thread holds its context
			// here
			String current = Callers.principal();
			principal = (current != null) ? Mono.just(current)
					: Callers.reactive() ? ReactiveCallers.principal() : Mono.empty();
		}
		return principal.map((name) -> Callers.caller(name, address)).defaultIfEmpty(Callers.caller(null, address));
	}

	private static String address(WebGraphQlRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		if (remote == null) {
			return null;
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

}
