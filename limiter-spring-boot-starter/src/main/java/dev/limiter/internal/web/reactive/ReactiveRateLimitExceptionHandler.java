package dev.limiter.internal.web.reactive;

import reactor.core.publisher.Mono;

import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with the same headers and
 * {@code application/problem+json} body as on the servlet stack, in Spring WebFlux
 * applications; a fail-closed rejection while the store is unavailable gets the
 * configured status, 503 by default. The answer is written straight to the response by
 * {@link ReactiveRejections}, as for every reactive surface.
 */
@RestControllerAdvice
@Order(RateLimitResponses.HANDLER_ORDER)
public class ReactiveRateLimitExceptionHandler {

	private final ReactiveRejections rejections;

	/**
	 * Create the handler.
	 * @param rejections writes the answers
	 */
	public ReactiveRateLimitExceptionHandler(ReactiveRejections rejections) {
		if (rejections == null) {
			throw new IllegalArgumentException("rejections must not be null");
		}
		this.rejections = rejections;
	}

	/**
	 * Answer a rejection by a fail-closed limit while the store is unavailable: the
	 * configured status, {@code Retry-After} and a problem that says the store is
	 * unavailable.
	 * @param ex the rejection
	 * @param exchange the exchange to answer
	 * @return completes when the response is written
	 */
	@ExceptionHandler(RateLimitUnavailableException.class)
	public Mono<Void> handleRateLimitUnavailable(RateLimitUnavailableException ex, ServerWebExchange exchange) {
		return this.rejections.write(exchange, ex);
	}

	/**
	 * Answer a rejection.
	 * @param ex the rejection
	 * @param exchange the exchange to answer
	 * @return completes when the 429 is written
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public Mono<Void> handleRateLimitExceeded(RateLimitExceededException ex, ServerWebExchange exchange) {
		return this.rejections.write(exchange, ex);
	}

}
