package dev.limiter.internal.client;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an upstream's headers say of its quota, as each common form writes it, and the
 * garbage that must be ignored.
 */
class UpstreamHoldTests {

	private static final long NOW = 1_795_000_000_000L;

	private static UpstreamHold hold(int status, Map<String, String> headers) {
		return UpstreamHold.of(status, headers::get, NOW);
	}

	@Test
	void aRetryAfterOfA429Or503InSecondsOrAsADate() {
		assertThat(hold(429, Map.of("Retry-After", "3")).duration()).isEqualTo(Duration.ofSeconds(3));
		assertThat(hold(503, Map.of("Retry-After", " 120 ")).duration()).isEqualTo(Duration.ofSeconds(120));
		String inTenSeconds = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME
			.format(java.time.Instant.ofEpochMilli(NOW + 10_000).atZone(java.time.ZoneOffset.UTC));
		assertThat(hold(429, Map.of("Retry-After", inTenSeconds)).duration()).isEqualTo(Duration.ofSeconds(10));
		assertThat(hold(200, Map.of("Retry-After", "3"))).as("not on a success").isNull();
	}

	@Test
	void theRateLimitHeadersOfTheDraftsAndTheCommonXRateLimitPair() {
		assertThat(hold(200, Map.of("RateLimit", "\"default\";r=0;t=30")).duration()).isEqualTo(Duration.ofSeconds(30));
		assertThat(hold(200, Map.of("RateLimit", "\"default\";r=4;t=30"))).as("some left").isNull();
		assertThat(hold(200, Map.of("RateLimit-Remaining", "0", "RateLimit-Reset", "12")).duration())
			.isEqualTo(Duration.ofSeconds(12));
		assertThat(hold(200, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "7")).duration())
			.isEqualTo(Duration.ofSeconds(7));
		assertThat(hold(200, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(NOW / 1_000 + 45)))
			.duration()).as("epoch seconds, as GitHub sends them").isEqualTo(Duration.ofSeconds(45));
	}

	@Test
	void garbageNegativeOrPastValuesAreIgnored() {
		assertThat(hold(429, Map.of("Retry-After", "soon"))).isNull();
		assertThat(hold(429, Map.of("Retry-After", "-5"))).isNull();
		assertThat(hold(429, Map.of("Retry-After", "99999999999999999999"))).isNull();
		assertThat(hold(200, Map.of("RateLimit", "r=0;t=abc"))).isNull();
		assertThat(hold(200, Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1000000001")))
			.as("an epoch second in the past")
			.isNull();
		assertThat(hold(200, Map.of("X-RateLimit-Remaining", "zero", "X-RateLimit-Reset", "5"))).isNull();
	}

}
