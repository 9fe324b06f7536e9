package dev.limiter.web;

import java.net.URI;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with an
 * {@code application/problem+json} body and the rate-limit headers.
 * <p>
 * The body is a {@link ProblemDetail} whose detail is the exception's (already localized)
 * message, with the violated limit as the properties {@code limit}, {@code threshold},
 * {@code period} (ISO-8601) and {@code retryAfter} (seconds). The key is not exposed: it
 * holds the user name or the client address.
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
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	/** The problem type of a rejection. */
	public static final URI TYPE = URI.create("about:blank");

	private final RateLimitHeaders headers;

	/**
	 * Create the handler.
	 * @param headers the header writer
	 */
	public RateLimitExceptionHandler(RateLimitHeaders headers) {
		if (headers == null) {
			throw new IllegalArgumentException("headers must not be null");
		}
		this.headers = headers;
	}

	/**
	 * Answer a rejection.
	 * @param ex the rejection
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex) {
		Decision decision = ex.getDecision();
		Limit limit = decision.limit();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, ex.getMessage());
		problem.setType(TYPE);
		problem.setTitle(HttpStatus.TOO_MANY_REQUESTS.getReasonPhrase());
		problem.setProperty("limit", limit.name());
		problem.setProperty("threshold", limit.threshold());
		problem.setProperty("period", limit.period().toString());
		problem.setProperty("retryAfter", decision.retryAfterSeconds());
		HttpHeaders httpHeaders = new HttpHeaders();
		this.headers.write(decision, httpHeaders::set);
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
			.headers(httpHeaders)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(problem);
	}

}
