package dev.limiter.internal.web.reactive;

import java.security.Principal;

import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.limiter.internal.key.ReactiveCurrentRequest;

/**
 * Finds the {@link ServerWebExchange} of the current subscription, which
 * {@link ServerWebExchangeContextFilter} puts in the Reactor context, and resolves its
 * principal first, so that the key resolver reads it without blocking.
 */
public final class ServerWebExchangeCurrentRequest implements ReactiveCurrentRequest {

	/** The exchange attribute that holds the principal's name, once resolved. */
	public static final String PRINCIPAL_NAME = ServerWebExchangeCurrentRequest.class.getName() + ".principal";

	@Override
	public Mono<Object> get() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(ServerWebExchangeContextFilter.getExchange(context)))
			.flatMap((exchange) -> exchange.getPrincipal()
				.map(Principal::getName)
				.doOnNext((name) -> exchange.getAttributes().put(PRINCIPAL_NAME, name))
				.then(Mono.just(exchange)));
	}

}
