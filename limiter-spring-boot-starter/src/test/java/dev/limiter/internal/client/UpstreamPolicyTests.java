package dev.limiter.internal.client;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quota an upstream announces in {@code RateLimit-Policy}, as each draft writes it.
 */
class UpstreamPolicyTests {

	@Test
	void bothDraftsAndTheSmallestRateOfSeveralPolicies() {
		assertThat(UpstreamPolicy.of("\"default\";q=100;w=60"))
			.isEqualTo(new UpstreamPolicy(100, Duration.ofSeconds(60)));
		assertThat(UpstreamPolicy.of("100;w=60")).isEqualTo(new UpstreamPolicy(100, Duration.ofSeconds(60)));
		assertThat(UpstreamPolicy.of("\"burst\";q=10;w=1, \"daily\";q=1000;w=86400"))
			.as("1,000 a day is the smaller rate")
			.isEqualTo(new UpstreamPolicy(1_000, Duration.ofSeconds(86_400)));
		assertThat(new UpstreamPolicy(5, Duration.ofSeconds(1)).isSmallerThan(20, Duration.ofSeconds(1))).isTrue();
		assertThat(new UpstreamPolicy(100, Duration.ofSeconds(60)).isSmallerThan(1, Duration.ofSeconds(1))).isFalse();
	}

	@Test
	void garbageIsIgnored() {
		assertThat(UpstreamPolicy.of(null)).isNull();
		assertThat(UpstreamPolicy.of("q=abc;w=1")).isNull();
		assertThat(UpstreamPolicy.of("\"default\";q=0;w=60")).isNull();
		assertThat(UpstreamPolicy.of("\"default\";q=10")).as("no window").isNull();
		assertThat(UpstreamPolicy.of("9999999999999;w=1")).isNull();
	}

}
