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
	void theRequestsAndTokensPairsOfModelProvidersInGoDurations() {
		assertThat(hold(200, Map.of("X-RateLimit-Remaining-Tokens", "0", "X-RateLimit-Reset-Tokens", "6m0s")))
			.isEqualTo(new UpstreamHold(Duration.ofMinutes(6), "X-RateLimit-Remaining-Tokens too low"));
		assertThat(hold(200, Map.of("X-RateLimit-Remaining-Requests", "0", "X-RateLimit-Reset-Requests", "120ms"))
			.duration()).isEqualTo(Duration.ofMillis(120));
		assertThat(hold(200, Map.of("X-RateLimit-Remaining-Tokens", "380", "X-RateLimit-Reset-Tokens", "6m0s")))
			.as("some left")
			.isNull();
		assertThat(UpstreamHold.of(200,
				Map.of("X-RateLimit-Remaining-Tokens", "380", "X-RateLimit-Reset-Tokens", "2s")::get, NOW, 1_100))
			.as("fewer left than the call reserved: the next one like it would be refused")
			.isEqualTo(new UpstreamHold(Duration.ofSeconds(2), "X-RateLimit-Remaining-Tokens too low"));
		assertThat(hold(429,
				Map.of("X-RateLimit-Remaining-Tokens", "12", "X-RateLimit-Reset-Tokens", "1.5s",
						"X-RateLimit-Remaining-Requests", "50", "X-RateLimit-Reset-Requests", "20ms")))
			.as("a 429 without Retry-After waits for the later reset")
			.isEqualTo(new UpstreamHold(Duration.ofMillis(1_500), "429 with X-RateLimit-Reset-Tokens"));
		assertThat(UpstreamHold.goDuration("1h2m3.5s")).isEqualTo(Duration.ofMillis(3_723_500));
		assertThat(UpstreamHold.goDuration("17s")).isEqualTo(Duration.ofSeconds(17));
		for (String garbage : new String[] { "0s", "6m0", "m", "-1s", "1s2", "1d", "1.2.3s", "9".repeat(50) + "s" }) {
			assertThat(UpstreamHold.goDuration(garbage)).as(garbage).isNull();
		}
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
