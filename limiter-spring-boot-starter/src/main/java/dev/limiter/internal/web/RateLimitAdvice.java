package dev.limiter.internal.web;

import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * The exception handlers every web stack's advice shares: a rejection becomes the shared
 * {@link RateLimitResponses}' 429, a fail-closed rejection while the store is unavailable
 * its configured status, 503 by default. A stack's subclass is the
 * {@code @RestControllerAdvice}.
 */
public abstract class RateLimitAdvice {

	private final RateLimitResponses responses;

	/**
	 * Create the advice.
	 * @param responses the 429 and 503 answers
	 */
	protected RateLimitAdvice(RateLimitResponses responses) {
		if (responses == null) {
			throw new IllegalArgumentException("responses must not be null");
		}
		this.responses = responses;
	}

	/**
	 * Answer a rejection by a fail-closed limit while the store is unavailable: the
	 * configured status, {@code Retry-After} and a problem that says the store is
	 * unavailable.
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

	/**
	 * Return the answers this advice gives.
	 * @return the responses
	 */
	public RateLimitResponses responses() {
		return this.responses;
	}

}
