package dev.limiter.internal;

import dev.limiter.Decision;
import dev.limiter.Limit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class AbstractRateLimiterTests {

	private final Limit small = Limit.of(3, Duration.ofSeconds(1));

	private final Limit large = Limit.of(5, Duration.ofSeconds(10));

	@Test
	void rejectsBadKeys() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> AbstractRateLimiter.validate(null, 1, List.of(this.small)))
			.withMessage("key must not be null or blank");
		assertThatIllegalArgumentException().isThrownBy(() -> AbstractRateLimiter.validate(" ", 1, List.of(this.small)))
			.withMessage("key must not be null or blank");
	}

	@Test
	void rejectsPermitsOutsideOneToSmallestThreshold() {
		List<Limit> limits = List.of(this.large, this.small);
		assertThatIllegalArgumentException().isThrownBy(() -> AbstractRateLimiter.validate("k", 0, limits))
			.withMessage("permits must be between 1 and the smallest threshold (3), was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> AbstractRateLimiter.validate("k", 4, limits))
			.withMessage("permits must be between 1 and the smallest threshold (3), was 4");
		assertThat(AbstractRateLimiter.validate("k", 3, limits)).containsExactly(this.large, this.small);
	}

	@Test
	void rejectsMissingLimits() {
		assertThatIllegalArgumentException().isThrownBy(() -> AbstractRateLimiter.validate("k", 1, List.of()))
			.withMessage("limits must contain at least one limit");
		assertThatIllegalArgumentException().isThrownBy(() -> AbstractRateLimiter.validate("k", 1, null))
			.withMessage("limits must contain at least one limit");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> AbstractRateLimiter.validate("k", 1, Arrays.asList(this.small, null)))
			.withMessage("limits must not contain null");
	}

	@Test
	void foldsLimitsThatShareAWindow() {
		List<Limit> limits = List.of(this.small, this.large, this.small.named("again"), this.large);
		assertThat(AbstractRateLimiter.validate("k", 1, limits)).containsExactly(this.small, this.large);
	}

	@Test
	void ofLimitsThatShareAWindowTheLowestThresholdDecidesAlone() {
		Limit lower = this.large.withThreshold(2).named("lower");
		List<Limit> limits = List.of(this.large, this.small, lower, this.large.withThreshold(4));
		assertThat(AbstractRateLimiter.validate("k", 1, limits)).containsExactly(lower, this.small);
	}

	@Test
	void neverCallsTheStoreWithInvalidArguments() {
		List<String> calls = new ArrayList<>();
		AbstractRateLimiter limiter = new AbstractRateLimiter() {
			@Override
			protected Decision doAcquire(String key, long permits, List<Limit> limits) {
				calls.add(key);
				return Decision.allowed(limits.get(0), 0, Duration.ZERO, 0);
			}
		};
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("k", 9, List.of(this.small)));
		assertThat(calls).isEmpty();
		limiter.acquire("k", this.small);
		assertThat(calls).containsExactly("k");
	}

}
