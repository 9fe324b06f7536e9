package dev.limiter;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DecisionTests {

	private final Limit limit = Limit.of(2, Duration.ofSeconds(30));

	@Test
	void retryAfterSecondsRoundsUpAndIsAtLeastOne() {
		assertThat(rejected(Duration.ofMillis(1)).retryAfterSeconds()).isEqualTo(1);
		assertThat(rejected(Duration.ofMillis(16_001)).retryAfterSeconds()).isEqualTo(17);
		assertThat(rejected(Duration.ofSeconds(17)).retryAfterSeconds()).isEqualTo(17);
		assertThat(rejected(Duration.ZERO).retryAfterSeconds()).isEqualTo(1);
	}

	@Test
	void allowedDecisionHasNoWait() {
		Decision decision = Decision.allowed(this.limit, 1, Duration.ofMillis(29_500), 42);
		assertThat(decision.isAllowed()).isTrue();
		assertThat(decision.retryAfter()).isZero();
		assertThat(decision.retryAfterSeconds()).isZero();
		assertThat(decision.resetAfterSeconds()).isEqualTo(30);
		assertThat(decision.decidedAtMicros()).isEqualTo(42);
	}

	@Test
	void exceptionCarriesDecisionAndStandardMessage() {
		Decision decision = rejected(Duration.ofMillis(16_001));
		RateLimitExceededException ex = RateLimitExceededException.of("user:1", decision);
		assertThat(ex.getDecision()).isSameAs(decision);
		assertThat(ex.getKey()).isEqualTo("user:1");
		assertThat(ex).hasMessage("Rate limit 'default' (2 per 30s) exceeded, retry after 17s");
	}

	private Decision rejected(Duration retryAfter) {
		return Decision.rejected(this.limit, 0, retryAfter, Duration.ofSeconds(30), 0);
	}

}
