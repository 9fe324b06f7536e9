package dev.limiter.graphql;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import graphql.ErrorClassification;
import graphql.ExecutionResult;
import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.graphql.support.DefaultExecutionGraphQlResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * What a GraphQL client is told: every response's {@code extensions.rateLimit} carries
 * the operation's cost and the budget (GitHub's {@code rateLimit} fields: {@code cost},
 * {@code limit}, {@code remaining}, {@code used}, {@code resetAt}), the HTTP headers say
 * the same, and a refusal is an error classified {@code RATE_LIMITED} (or
 * {@code UNAVAILABLE}) with {@code retryAfter} in seconds in its extensions, answered
 * with 429 (or 503) and {@code Retry-After} over HTTP.
 */
final class GraphQlAnswers {

	/** The name under a response's extensions. */
	static final String EXTENSION = "rateLimit";

	private final RateLimitHeaders headers;

	GraphQlAnswers(RateLimitHeaders headers) {
		this.headers = headers;
	}

	/** How Limiter classifies the errors it answers with. */
	enum Classification implements ErrorClassification {

		/** Over a budget or a rate limit: retry after the time given. */
		RATE_LIMITED(HttpStatus.TOO_MANY_REQUESTS),

		/**
		 * The store cannot answer and the limit fails closed, or a capacity limit is
		 * full.
		 */
		UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE),

		/**
		 * The operation costs more than the whole budget: it can never pass as written, a
		 * request error (400) whatever the response's media type, as every surface
		 * answers a call that can never pass.
		 */
		OPERATION_TOO_EXPENSIVE(HttpStatus.BAD_REQUEST);

		private final HttpStatus status;

		Classification(HttpStatus status) {
			this.status = status;
		}

		/**
		 * The HTTP status of a response with this error, or null to leave it to Spring
		 * for GraphQL.
		 */
		HttpStatus status() {
			return this.status;
		}

	}

	/**
	 * Return the HTTP status a response answered with one of Limiter's refusals gets.
	 * @param result the response's result
	 * @return the status, or {@code null} when Limiter refused nothing
	 */
	static HttpStatus status(ExecutionResult result) {
		if (result.isDataPresent()) {
			return null;
		}
		for (GraphQLError error : result.getErrors()) {
			if (error.getErrorType() instanceof Classification classification && classification.status() != null) {
				return classification.status();
			}
		}
		return null;
	}

	/** Return the budget a decision leaves, as {@code extensions.rateLimit} says it. */
	static Map<String, Object> budget(Decision decision, long cost, long remaining) {
		Map<String, Object> budget = new LinkedHashMap<>();
		long limit = decision.limit().threshold();
		budget.put("cost", cost);
		budget.put("limit", limit);
		budget.put("remaining", remaining);
		budget.put("used", Math.max(0, limit - remaining));
		if (!decision.isAllowed() || decision.resetAfter().toNanos() > 0) {
			long resetMicros = decision.decidedAtMicros()
					+ (decision.isAllowed() ? decision.resetAfter() : decision.retryAfter()).toNanos() / 1000;
			budget.put("resetAt",
					Instant
						.ofEpochSecond(Math.floorDiv(resetMicros, 1_000_000L),
								Math.floorMod(resetMicros, 1_000_000L) * 1000)
						.toString());
		}
		return budget;
	}

	/** Write the quota of an admitted operation into the HTTP response's headers. */
	void admitted(Decision decision, HttpHeaders headers) {
		if (decision != null) {
			this.headers.writeAdmitted(decision, headers::set);
		}
	}

	/** Return the error that refuses an operation, with the response's headers set. */
	GraphQLError refusal(RateLimitExceededException rejection, long cost, HttpHeaders headers) {
		if (rejection instanceof CostExceedsLimitException costly) {
			return tooExpensive(costly);
		}
		Decision decision = rejection.getDecision();
		boolean unavailable = rejection instanceof RateLimitUnavailableException;
		if (unavailable) {
			headers.set(RateLimitHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
		}
		else {
			this.headers.write(decision, headers::set);
		}
		return error(GraphqlErrorBuilder.newError(), rejection,
				unavailable ? null : budget(decision, cost, decision.remaining()));
	}

	/**
	 * Return the error of a refusal: its message, its classification and the seconds to
	 * wait in {@code extensions.retryAfter}, with the budget when there is one.
	 */
	static GraphQLError error(GraphqlErrorBuilder<?> builder, RateLimitExceededException rejection,
			Map<String, Object> budget) {
		Map<String, Object> extensions = new LinkedHashMap<>();
		extensions.put("retryAfter", rejection.getDecision().retryAfterSeconds());
		if (budget != null) {
			extensions.put(EXTENSION, budget);
		}
		return builder.message(rejection.getMessage())
			.errorType((rejection instanceof RateLimitUnavailableException) ? Classification.UNAVAILABLE
					: Classification.RATE_LIMITED)
			.extensions(extensions)
			.build();
	}

	/**
	 * Return the error that refuses an operation costing more than its whole budget: it
	 * can never pass as written, so it carries no time to retry.
	 */
	static GraphQLError tooExpensive(CostExceedsLimitException rejection) {
		Map<String, Object> extensions = new LinkedHashMap<>();
		extensions.put("cost", rejection.getCost());
		extensions.put("limit", rejection.getLargestCost());
		return GraphqlErrorBuilder.newError()
			.message(rejection.getMessage())
			.errorType(Classification.OPERATION_TOO_EXPENSIVE)
			.extensions(extensions)
			.build();
	}

	/** Return a response of errors only, for an operation that never ran. */
	static WebGraphQlResponse refused(graphql.ExecutionInput input, List<GraphQLError> errors) {
		return new WebGraphQlResponse(new DefaultExecutionGraphQlResponse(input,
				ExecutionResult.newExecutionResult().errors(errors).build()));
	}

}
