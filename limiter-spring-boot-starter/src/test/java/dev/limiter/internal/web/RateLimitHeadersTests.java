package dev.limiter.internal.web;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.web.HeaderStyle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RateLimitHeaders}.
 */
class RateLimitHeadersTests {

	private static final Limit LIMIT = Limit.of(2, Duration.ofSeconds(30));

	@Test
	void rejectionWithBothStyles() {
		Decision decision = Decision.rejected(LIMIT, 0, Duration.ofMillis(16_001), Duration.ofSeconds(30), 0);
		assertThat(write(HeaderStyle.BOTH, decision)).containsExactly(Map.entry("Retry-After", "17"),
				Map.entry("RateLimit-Policy", "\"default\";q=2;w=30"), Map.entry("RateLimit", "\"default\";r=0;t=17"),
				Map.entry("X-RateLimit-Limit", "2"), Map.entry("X-RateLimit-Remaining", "0"),
				Map.entry("X-RateLimit-Reset", "30"));
	}

	@Test
	void admissionHasNoRetryAfter() {
		Decision decision = Decision.allowed(LIMIT, 1, Duration.ofMillis(29_500), 0);
		assertThat(write(HeaderStyle.IETF, decision)).containsExactly(
				Map.entry("RateLimit-Policy", "\"default\";q=2;w=30"), Map.entry("RateLimit", "\"default\";r=1;t=30"));
	}

	@Test
	void namesAreQuotedAsStructuredFieldStrings() {
		Limit limit = Limit.of(5, Duration.ofMillis(1500)).named("a\"b\\c");
		Decision decision = Decision.allowed(limit, 4, Duration.ofMillis(1500), 0);
		assertThat(write(HeaderStyle.IETF, decision)).containsEntry("RateLimit-Policy", "\"a\\\"b\\\\c\";q=5;w=2");
	}

	@Test
	void noneWritesOnlyRetryAfter() {
		Decision decision = Decision.rejected(LIMIT, 0, Duration.ofSeconds(3), Duration.ofSeconds(30), 0);
		assertThat(write(HeaderStyle.NONE, decision)).containsOnlyKeys("Retry-After");
	}

	@Test
	void styleMustNotBeNull() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitHeaders(null))
			.withMessage("style must not be null");
	}

	private static Map<String, String> write(HeaderStyle style, Decision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		new RateLimitHeaders(style).write(decision, headers::put);
		return headers;
	}

}
