package dev.limiter.internal.web;

import java.net.URI;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

import dev.limiter.Algorithm;
import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * Builds the {@code application/problem+json} body of a rejection, whichever the web
 * stack that sends it.
 * <p>
 * The problem types are the two that the RateLimit fields draft (-11) registers:
 * {@code quota-exceeded} for a call over its quota, with {@code violated-policies} naming
 * the policies as the {@code RateLimit-Policy} field does, and
 * {@code temporary-reduced-capacity} for a fail-closed refusal while the store cannot
 * answer. The detail is the exception's (already localized) message, with the violated
 * limit as the properties {@code limit}, {@code threshold}, {@code period} (ISO-8601) and
 * {@code retryAfter} (seconds). The key is not exposed: it holds the user name or the
 * client address.
 */
public final class RateLimitProblems {

	/**
	 * The problem type of a call over its quota, as the RateLimit fields draft registers
	 * it.
	 */
	public static final URI QUOTA_EXCEEDED = URI
		.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	/**
	 * The problem type of a call refused while the limiter's store cannot answer, as the
	 * RateLimit fields draft registers it.
	 */
	public static final URI TEMPORARY_REDUCED_CAPACITY = URI
		.create("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");

	private static final String QUOTA_EXCEEDED_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

	private static final String TEMPORARY_REDUCED_CAPACITY_TITLE = "Request cannot be satisfied due to temporary "
			+ "server capacity constraints";

	private static final String COST_EXCEEDS_LIMIT_TITLE = "Request costs more than its limit holds in all";

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
		problem.setType(QUOTA_EXCEEDED);
		problem.setTitle(QUOTA_EXCEEDED_TITLE);
		// The policy names of the RateLimit-Policy field: the deciding limit's.
		problem.setProperty("violated-policies", List.of(limit.name()));
		problem.setProperty("limit", limit.name());
		problem.setProperty("threshold", limit.threshold());
		// an in-flight limit's period is the lease of its slots, not a window
		problem.setProperty((limit.algorithm() == Algorithm.IN_FLIGHT) ? "lease" : "period", limit.period().toString());
		problem.setProperty("retryAfter", decision.retryAfterSeconds());
		return problem;
	}

	/**
	 * Return the problem of a call that costs more than its limit holds in all: 400, the
	 * limit, its threshold and the call's cost; no time to retry, since none helps.
	 * @param ex the refusal
	 * @return the problem
	 */
	public static ProblemDetail tooCostly(CostExceedsLimitException ex) {
		Limit limit = ex.getDecision().limit();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
		problem.setTitle(COST_EXCEEDS_LIMIT_TITLE);
		problem.setProperty("limit", limit.name());
		problem.setProperty("threshold", limit.threshold());
		problem.setProperty("cost", ex.getCost());
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
		problem.setType(TEMPORARY_REDUCED_CAPACITY);
		problem.setTitle(TEMPORARY_REDUCED_CAPACITY_TITLE);
		problem.setProperty("limit", decision.limit().name());
		problem.setProperty("retryAfter", decision.retryAfterSeconds());
		return problem;
	}

}
