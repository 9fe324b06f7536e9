package dev.limiter.internal.web;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * Builds the {@code application/problem+json} body of a rejection, whichever the web
 * stack that sends it.
 * <p>
 * The detail is the exception's (already localized) message, with the violated limit as
 * the properties {@code limit}, {@code threshold}, {@code period} (ISO-8601) and
 * {@code retryAfter} (seconds). The key is not exposed: it holds the user name or the
 * client address.
 */
public final class RateLimitProblems {

	/** The problem type of a rejection. */
	public static final URI TYPE = URI.create("about:blank");

	private RateLimitProblems() {
	}

	/**
	 * Return the problem of a call over its limit: 429 with the violated limit.
	 * @param ex the rejection
	 * @return the problem
	 */
	public static ProblemDetail exceeded(RateLimitExceededException ex) {
		Decision decision = ex.getDecision();
		Limit limit = decision.limit();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, ex.getMessage());
		problem.setType(TYPE);
		problem.setTitle(HttpStatus.TOO_MANY_REQUESTS.getReasonPhrase());
		problem.setProperty("limit", limit.name());
		problem.setProperty("threshold", limit.threshold());
		problem.setProperty("period", limit.period().toString());
		problem.setProperty("retryAfter", decision.retryAfterSeconds());
		return problem;
	}

	/**
	 * Return the problem of a call that a fail-closed limit rejected because the store is
	 * unavailable: the limit's name and when to come back, no quota, which nobody knows
	 * while the store is down.
	 * @param ex the rejection
	 * @param status the status to answer with, such as 503
	 * @return the problem
	 */
	public static ProblemDetail unavailable(RateLimitUnavailableException ex, HttpStatusCode status) {
		Decision decision = ex.getDecision();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
		problem.setType(TYPE);
		HttpStatus known = HttpStatus.resolve(status.value());
		if (known != null) {
			problem.setTitle(known.getReasonPhrase());
		}
		problem.setProperty("limit", decision.limit().name());
		problem.setProperty("retryAfter", decision.retryAfterSeconds());
		return problem;
	}

}
