package dev.limiter.gateway;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.limiter.internal.call.CallHandle;

/**
 * Ends the requests of routes that count calls in flight when their exchange is finished,
 * however it ends: the upstream's response written, an error, or a client that went away.
 * First of the gateway's filters, so that it sees the whole exchange; a gateway whose
 * routes hold no slots passes every exchange on untouched.
 */
final class RouteCallEnds implements GlobalFilter, Ordered {

	private static final String HELD = RouteCallEnds.class.getName() + ".held";

	private final GatewayRateLimiter limiter;

	RouteCallEnds(GatewayRateLimiter limiter) {
		this.limiter = limiter;
	}

	/** Remember an admitted request to end with its exchange. */
	static void hold(ServerWebExchange exchange, CallHandle call) {
		exchange.getAttributes().computeIfAbsent(HELD, (name) -> new CopyOnWriteArrayList<CallHandle>());
		held(exchange).add(call);
	}

	@SuppressWarnings("unchecked")
	private static List<CallHandle> held(ServerWebExchange exchange) {
		return (List<CallHandle>) exchange.getAttributes().get(HELD);
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		if (!this.limiter.holdsSlots()) {
			return chain.filter(exchange);
		}
		return chain.filter(exchange)
			.onErrorResume((ex) -> Mono.defer(() -> end(exchange, ex)).then(Mono.error(ex)))
			.then(Mono.defer(() -> end(exchange, null)))
			.doOnCancel(() -> end(exchange, null).subscribe());
	}

	/**
	 * End the exchange's held calls, once each; the end talks to the store, off the event
	 * loop.
	 */
	private Mono<Void> end(ServerWebExchange exchange, Throwable failure) {
		List<CallHandle> held = held(exchange);
		if (held == null || held.isEmpty()) {
			return Mono.empty();
		}
		List<CallHandle> ending = List.copyOf(held);
		held.removeAll(ending);
		// the upstream's status tells an adaptive limit an overloaded backend
		org.springframework.http.HttpStatusCode status = exchange.getResponse().getStatusCode();
		int code = (status != null) ? status.value() : 0;
		return Mono.when(ending.stream().map((call) -> Mono.fromFuture(() -> call.endAsync(failure, code))).toList());
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
