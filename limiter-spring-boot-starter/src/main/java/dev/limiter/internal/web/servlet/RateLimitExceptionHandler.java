package dev.limiter.internal.web.servlet;

import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with an
 * {@code application/problem+json} body and the rate-limit headers
 * ({@link RateLimitResponses}), in Spring MVC applications.
 * <p>
 * A {@link RateLimitUnavailableException} (a fail-closed limit while the store is
 * unavailable) gets the configured status instead, 503 by default, with
 * {@code Retry-After} and a problem that says so.
 * <p>
 * Ordered ahead of the application's advice so that a catch-all
 * {@code @ExceptionHandler(Exception.class)} does not turn a rejection into a 500; the
 * auto-configuration does not register it at all when the application declares its own
 * {@code @ExceptionHandler} for {@link RateLimitExceededException}.
 */
@RestControllerAdvice
@Order(RateLimitExceptionHandler.ORDER)
public class RateLimitExceptionHandler {

	/** The order of this advice: early, but after advice ordered at the very top. */
	public static final int ORDER = RateLimitResponses.HANDLER_ORDER;

	private final RateLimitResponses responses;

	/**
	 * Create the handler, answering rejections for an unavailable store with 503.
	 * @param headers the header writer
	 */
	public RateLimitExceptionHandler(RateLimitHeaders headers) {
		this(headers, HttpStatus.SERVICE_UNAVAILABLE);
	}

	/**
	 * Create the handler.
	 * @param headers the header writer
	 * @param unavailableStatus the status of a call that a fail-closed limit rejects
	 * because the store is unavailable
	 */
	public RateLimitExceptionHandler(RateLimitHeaders headers, HttpStatusCode unavailableStatus) {
		this(new RateLimitResponses(headers, unavailableStatus));
	}

	/**
	 * Create the handler over the application's responses.
	 * @param responses the 429 and 503 answers
	 */
	public RateLimitExceptionHandler(RateLimitResponses responses) {
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
	 * Return the answers this handler gives.
	 * @return the responses
	 */
	public RateLimitResponses responses() {
		return this.responses;
	}

}
