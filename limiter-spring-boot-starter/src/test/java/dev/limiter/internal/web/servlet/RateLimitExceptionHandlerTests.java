package dev.limiter.internal.web.servlet;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.internal.web.RateLimitProblems;
import dev.limiter.web.HeaderStyle;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitExceptionHandlerTests {

	private final Limit limit = Limit.of("search", 3, Duration.ofSeconds(10));

	private final RateLimitExceptionHandler handler = new RateLimitExceptionHandler(
			new RateLimitHeaders(HeaderStyle.BOTH), HttpStatusCode.valueOf(503));

	@Test
	void aRejectionIsA429WithRetryAfterQuotaHeadersAndAProblem() {
		Decision decision = Decision.rejected(this.limit, 0, Duration.ofMillis(6_200), Duration.ofSeconds(10), 0);
		ResponseEntity<ProblemDetail> response = this.handler
			.handleRateLimitExceeded(RateLimitExceededException.of("k", decision));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("7");
		assertThat(response.getHeaders().getFirst("RateLimit-Policy")).isEqualTo("\"search\";q=3;w=10");
		assertThat(response.getHeaders().getFirst("RateLimit")).isEqualTo("\"search\";r=0;t=7");
		assertThat(response.getHeaders().getFirst("X-RateLimit-Limit")).isEqualTo("3");
		assertThat(response.getHeaders().getFirst("X-RateLimit-Remaining")).isEqualTo("0");
		ProblemDetail problem = response.getBody();
		assertThat(problem.getStatus()).isEqualTo(429);
		assertThat(problem.getType()).hasToString("https://iana.org/assignments/http-problem-types#quota-exceeded")
			.isEqualTo(RateLimitProblems.QUOTA_EXCEEDED);
		assertThat(problem.getTitle()).isEqualTo("Request cannot be satisfied as assigned quota has been exceeded");
		assertThat(problem.getProperties()).containsEntry("violated-policies", java.util.List.of("search"));
		assertThat(problem.getDetail()).isEqualTo("Rate limit 'search' (3 per 10s) exceeded, retry after 7s");
		assertThat(problem.getProperties()).containsEntry("limit", "search")
			.containsEntry("threshold", 3L)
			.containsEntry("period", "PT10S")
			.containsEntry("retryAfter", 7L);
	}

	@Test
	void aFailClosedRejectionIsTheConfiguredStatusWithoutQuotaHeaders() {
		Decision decision = Decisions.decidedBy(
				Decision.rejected(this.limit, 0, Duration.ofSeconds(1), Duration.ofSeconds(1), 0),
				FailurePolicy.FAIL_CLOSED);
		ResponseEntity<ProblemDetail> response = this.handler
			.handleRateLimitUnavailable(RateLimitUnavailableException.of("k", decision));
		assertThat(response.getStatusCode().value()).isEqualTo(503);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(response.getHeaders().getFirst("RateLimit")).isNull();
		assertThat(response.getHeaders().getFirst("X-RateLimit-Remaining")).isNull();
		assertThat(response.getBody().getType())
			.hasToString("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
		assertThat(response.getBody().getTitle())
			.isEqualTo("Request cannot be satisfied due to temporary server capacity constraints");
		assertThat(response.getBody().getDetail()).contains("the limiter's store is unavailable");
	}

}
