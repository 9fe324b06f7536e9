package dev.limiter.internal.web.reactive;

import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.web.RateLimitAdvice;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with the same headers and
 * {@code application/problem+json} body as on the servlet stack, in Spring WebFlux
 * applications; a fail-closed rejection while the store is unavailable gets the
 * configured status, 503 by default.
 */
@RestControllerAdvice
@Order(RateLimitResponses.HANDLER_ORDER)
public class ReactiveRateLimitExceptionHandler extends RateLimitAdvice {

	/**
	 * Create the handler.
	 * @param responses the responses to rejections
	 */
	public ReactiveRateLimitExceptionHandler(RateLimitResponses responses) {
		super(responses);
	}

}
