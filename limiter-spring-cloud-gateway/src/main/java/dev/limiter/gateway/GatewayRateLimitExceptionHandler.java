package dev.limiter.gateway;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.web.reactive.ReactiveRejections;

/**
 * Answers a gateway request that a route's limits rejected with the same status (429, or
 * 503 by default for a fail-closed limit while the store is unavailable), headers and
 * {@code application/problem+json} body as an annotated method gets.
 */
public class GatewayRateLimitExceptionHandler implements WebExceptionHandler, Ordered {

	/** Before Spring Boot's error handler, which would answer 500. */
	public static final int ORDER = -2;

	private final ReactiveRejections rejections;

	/**
	 * Create the handler.
	 * @param rejections writes the answers of every reactive surface
	 */
	GatewayRateLimitExceptionHandler(ReactiveRejections rejections) {
		if (rejections == null) {
			throw new IllegalArgumentException("rejections must not be null");
		}
		this.rejections = rejections;
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		if (!(ex instanceof RateLimitExceededException rejection) || exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		return this.rejections.write(exchange, rejection);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
