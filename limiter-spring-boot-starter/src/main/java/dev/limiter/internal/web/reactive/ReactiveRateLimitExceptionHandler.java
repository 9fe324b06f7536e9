package dev.limiter.internal.web.reactive;

import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with the same headers and
 * {@code application/problem+json} body as on the servlet stack, in Spring WebFlux
 * applications; a fail-closed rejection while the store is unavailable gets the
 * configured status, 503 by default.
 */
@RestControllerAdvice
@Order(RateLimitResponses.HANDLER_ORDER)
public class ReactiveRateLimitExceptionHandler {

	private final RateLimitResponses responses;

	/**
	 * Create the handler.
	 * @param responses the responses to rejections
	 */
	public ReactiveRateLimitExceptionHandler(RateLimitResponses responses) {
		if (responses == null) {
			throw new IllegalArgumentException("responses must not be null");
		}
		this.responses = responses;
	}

	/**
	 * Answer a rejection by a fail-closed limit while the store is unavailable.
	 * @param ex the rejection
	 * @return the response, 503 by default
	 */
	@ExceptionHandler(RateLimitUnavailableException.class)
	public ResponseEntity<ProblemDetail> handleRateLimitUnavailable(RateLimitUnavailableException ex) {
		return this.responses.unavailable(ex);
	}

	/**
	 * Answer a rejection.
	 * @param ex the rejection
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex) {
		return this.responses.exceeded(ex);
	}

}
