package dev.limiter.internal.web;

import java.net.URI;
import java.util.function.BiConsumer;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import dev.limiter.Algorithm;
import dev.limiter.CostExceedsLimitException;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * The responses to rejected calls, whichever the web stack: 429 with the rate-limit
 * headers and an {@code application/problem+json} body, or the configured status (503 by
 * default) with {@code Retry-After} when a fail-closed limit rejects a call because the
 * store is unavailable.
 */
public final class RateLimitResponses {

	/**
	 * The order of the rejection handlers of every stack: early, but after advice ordered
	 * at the very top, so that an application's catch-all {@code @ExceptionHandler} does
	 * not turn a rejection into a 500.
	 */
	public static final int HANDLER_ORDER = org.springframework.core.Ordered.HIGHEST_PRECEDENCE + 1000;

	private final RateLimitHeaders headers;

	private final HttpStatusCode unavailableStatus;

	/**
	 * Create the responses.
	 * @param headers the header writer
	 * @param unavailableStatus the status of a call that a fail-closed limit rejects
	 * because the store is unavailable
	 */
	public RateLimitResponses(RateLimitHeaders headers, HttpStatusCode unavailableStatus) {
		if (headers == null) {
			throw new IllegalArgumentException("headers must not be null");
		}
		if (unavailableStatus == null) {
			throw new IllegalArgumentException("unavailableStatus must not be null");
		}
		this.headers = headers;
		this.unavailableStatus = unavailableStatus;
	}

	/**
	 * Answer a rejection by a fail-closed limit while the store is unavailable. No quota
	 * headers: nobody knows the quota while the store is down.
	 * @param ex the rejection
	 * @return the response, 503 by default
	 */
	public ResponseEntity<ProblemDetail> unavailable(RateLimitUnavailableException ex) {
		ResponseEntity.BodyBuilder response = ResponseEntity.status(this.unavailableStatus);
		return response.body(unavailable(ex, response::header));
	}

	/**
	 * Write the headers of a rejection by a fail-closed limit while the store is
	 * unavailable, {@code Content-Type} last, and return its body; its status is
	 * {@link #unavailableStatus()}.
	 * @param ex the rejection
	 * @param headers sets a header
	 * @return the problem
	 */
	public ProblemDetail unavailable(RateLimitUnavailableException ex, BiConsumer<String, String> headers) {
		if (ex.getDecision().limit() != null && ex.getDecision().limit().algorithm() == Algorithm.ADAPTIVE) {
			// the number this instance learned is known, and is the quota to report
			this.headers.write(ex.getDecision(), headers);
		}
		else {
			headers.accept(RateLimitHeaders.RETRY_AFTER, Long.toString(ex.getDecision().retryAfterSeconds()));
		}
		headers.accept(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		return RateLimitProblems.unavailable(ex, this.unavailableStatus);
	}

	/**
	 * Return the status of a call that a fail-closed limit rejects because the store is
	 * unavailable.
	 * @return the status, 503 by default
	 */
	public HttpStatusCode unavailableStatus() {
		return this.unavailableStatus;
	}

	/**
	 * Answer a rejection.
	 * @param ex the rejection
	 * @return the 429 response
	 */
	public ResponseEntity<ProblemDetail> exceeded(RateLimitExceededException ex) {
		ResponseEntity.BodyBuilder response = ResponseEntity
			.status((ex instanceof CostExceedsLimitException) ? HttpStatus.BAD_REQUEST : HttpStatus.TOO_MANY_REQUESTS);
		// Straight into the builder: copying a separate HttpHeaders in was a third of
		// what a rejection allocated. Each header is written once, so adding sets it.
		return response.body(exceeded(ex, response::header));
	}

	/**
	 * Write the headers of a rejection, {@code Content-Type} last, and return its body;
	 * its status is 429, or 400 for a call that costs more than its limit holds in all
	 * ({@link CostExceedsLimitException}), which gets no quota headers and no
	 * {@code Retry-After}.
	 * @param ex the rejection
	 * @param headers sets a header
	 * @return the problem
	 */
	public ProblemDetail exceeded(RateLimitExceededException ex, BiConsumer<String, String> headers) {
		if (ex instanceof CostExceedsLimitException costly) {
			// no quota and no Retry-After: no wait lets this call pass
			headers.accept(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			return RateLimitProblems.tooCostly(costly);
		}
		this.headers.write(ex.getDecision(), headers);
		headers.accept(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		return RateLimitProblems.exceeded(ex);
	}

	/**
	 * Answer a rejection, whichever it is and whichever the surface: write its headers,
	 * {@code Content-Type} last, and return its problem, whose status is the response's
	 * and whose instance is the request's path, as Spring completes a problem that names
	 * none.
	 * @param rejection the rejection, {@link RateLimitUnavailableException} for a
	 * fail-closed refusal while the store is unavailable
	 * @param path the request's path, or {@code null} to leave the instance unset
	 * @param headers sets a header
	 * @return the problem
	 */
	public ProblemDetail answer(RateLimitExceededException rejection, String path, BiConsumer<String, String> headers) {
		ProblemDetail problem = (rejection instanceof RateLimitUnavailableException unavailable)
				? unavailable(unavailable, headers) : exceeded(rejection, headers);
		if (path != null) {
			problem.setInstance(URI.create(path));
		}
		return problem;
	}

}
