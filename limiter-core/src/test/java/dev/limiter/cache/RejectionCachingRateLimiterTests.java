package dev.limiter.cache;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RejectionCachingRateLimiter}.
 */
class RejectionCachingRateLimiterTests {

	private static final Limit TWO_PER_10S = Limit.of(2, Duration.ofSeconds(10));

	private static final Limit FIVE_PER_MINUTE = Limit.of(5, Duration.ofMinutes(1));

	private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

	private final CountingLimiter store = new CountingLimiter(new InMemoryRateLimiter(this.clock, false));

	private final RateLimiter limiter = RejectionCachingRateLimiter.wrap(this.store).clock(this.clock).build();

	private RejectionCache cache() {
		return (RejectionCache) this.limiter;
	}

	@Test
	void rejectsLocallyUntilTheStoreWouldAdmit() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.clock.advance(Duration.ofSeconds(3));
		this.limiter.acquire("user", TWO_PER_10S);
		Decision first = this.limiter.acquire("user", TWO_PER_10S);
		assertThat(first.isAllowed()).isFalse();
		assertThat(first.retryAfter()).isEqualTo(Duration.ofSeconds(7));
		assertThat(this.store.calls()).isEqualTo(3);
		this.clock.advance(Duration.ofSeconds(6).plusMillis(999));
		Decision cached = this.limiter.acquire("user", TWO_PER_10S);
		assertThat(cached.isAllowed()).isFalse();
		assertThat(cached.retryAfter()).isEqualTo(Duration.ofMillis(1));
		assertThat(cached.limit()).isEqualTo(TWO_PER_10S);
		assertThat(this.store.calls()).isEqualTo(3);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isTrue();
		assertThat(this.store.calls()).isEqualTo(4);
	}

	@Test
	void aKnownRejectionIsTheRememberedOneAndAsksNothing() {
		assertThat(cache().cachedRejection("user", 1, List.of(TWO_PER_10S))).isNull();
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		assertThat(cache().cachedRejection("user", 1, List.of(TWO_PER_10S))).as("no rejection yet").isNull();
		Decision fromStore = this.limiter.acquire("user", TWO_PER_10S);
		assertThat(fromStore.isAllowed()).isFalse();
		this.clock.advance(Duration.ofSeconds(4));
		Decision known = cache().cachedRejection("user", 1, List.of(TWO_PER_10S));
		assertThat(this.store.calls()).isEqualTo(3);
		Decision acquired = this.limiter.acquire("user", TWO_PER_10S);
		assertThat(known).usingRecursiveComparison().isEqualTo(acquired);
		assertThat(known.retryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(cache().cachedRejection("user", 2, List.of(TWO_PER_10S))).as("other permits").isNull();
		assertThat(cache().cachedRejection("other", 1, List.of(TWO_PER_10S))).as("other key").isNull();
		assertThat(cache().cachedRejection("user", 1, List.of(FIVE_PER_MINUTE))).as("other limits").isNull();
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(cache().cachedRejection("user", 1, List.of(TWO_PER_10S))).as("block over").isNull();
		assertThat(this.store.calls()).isEqualTo(3);
	}

	@Test
	void neverRejectsACallTheStoreWouldAdmit() {
		RateLimiter plain = new InMemoryRateLimiter(this.clock, false);
		for (int step = 0; step < 400; step++) {
			// Compare against a twin store fed the same calls at the same instants.
			Decision cached = this.limiter.acquire("user", TWO_PER_10S);
			if (cached.isAllowed()) {
				assertThat(plain.acquire("user", TWO_PER_10S).isAllowed()).isTrue();
			}
			else {
				Decision truth = plain.acquire("user", TWO_PER_10S);
				assertThat(truth.isAllowed()).as("step %d", step).isFalse();
				assertThat(cached.retryAfter()).isEqualTo(truth.retryAfter());
			}
			this.clock.advance(Duration.ofMillis(137));
		}
		assertThat(this.store.calls()).isLessThan(400 / 2);
	}

	@Test
	void aRefusalInFlightIsRememberedNoLongerThanItsHintAndTheEndOfACallPassesThrough() {
		Limit one = Limit.of("reports", 1, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Decision running = this.limiter.acquire("user", one);
		Decision refused = this.limiter.acquire("user", one);
		assertThat(refused.isAllowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(250));
		assertThat(this.limiter.finish(running)).isTrue();
		int calls = this.store.calls();
		this.clock.advance(Duration.ofMillis(249));
		assertThat(this.limiter.acquire("user", one).isAllowed()).as("remembered for the hint").isFalse();
		assertThat(this.store.calls()).isEqualTo(calls);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.limiter.acquire("user", one).isAllowed()).as("no longer").isTrue();
		assertThat(this.store.calls()).isEqualTo(calls + 1);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE, names = { "IN_FLIGHT", "ADAPTIVE" })
	void neverRejectsACallTheStoreWouldAdmitWhateverTheAlgorithm(Algorithm algorithm) {
		Limit limit = Limit.of(3, Duration.ofSeconds(10)).withAlgorithm(algorithm).withSlices(7);
		RateLimiter plain = new InMemoryRateLimiter(this.clock, false);
		for (int step = 0; step < 400; step++) {
			Decision cached = this.limiter.acquire("user", limit);
			Decision truth = plain.acquire("user", limit);
			assertThat(cached.isAllowed()).as("step %d", step).isEqualTo(truth.isAllowed());
			assertThat(cached.retryAfter()).isEqualTo(truth.retryAfter());
			this.clock.advance(Duration.ofMillis(137));
		}
		assertThat(this.store.calls()).isLessThan(400 / 2);
	}

	@Test
	void aResetKeyAsksTheStoreAgain() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isFalse();
		this.limiter.reset("user", List.of(TWO_PER_10S));
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isTrue();
	}

	@Test
	void aForgottenKeyAsksTheStoreAgain() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isFalse();
		int calls = this.store.calls();
		cache().forgetCachedRejections("user");
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isFalse();
		assertThat(this.store.calls()).isEqualTo(calls + 1);
	}

	@Test
	void anotherSetOfLimitsIsNotBlocked() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		assertThat(this.limiter.acquire("user", TWO_PER_10S).isAllowed()).isFalse();
		assertThat(this.limiter.acquire("user", FIVE_PER_MINUTE).isAllowed()).isTrue();
		assertThat(this.limiter.acquire("other", TWO_PER_10S).isAllowed()).isTrue();
		assertThat(this.store.calls()).isEqualTo(5);
	}

	@Test
	void aCombinationThatContainsTheBlockedLimitStillAsksTheStore() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		int before = this.store.calls();
		Decision both = this.limiter.acquire("user", TWO_PER_10S, FIVE_PER_MINUTE);
		assertThat(both.isAllowed()).isFalse();
		assertThat(this.store.calls()).isEqualTo(before + 1);
	}

	@Test
	void theSameWindowUnderAnotherNameIsNotAnsweredWithTheOldName() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		Decision renamed = this.limiter.acquire("user", TWO_PER_10S.named("api"));
		assertThat(renamed.isAllowed()).isFalse();
		assertThat(renamed.limit().name()).isEqualTo("api");
	}

	@Test
	void otherPermitsAskTheStore() {
		Limit tenPer10s = Limit.of(10, Duration.ofSeconds(10));
		this.limiter.acquire("user", 8, List.of(tenPer10s));
		assertThat(this.limiter.acquire("user", 3, List.of(tenPer10s)).isAllowed()).isFalse();
		assertThat(this.limiter.acquire("user", 2, List.of(tenPer10s)).isAllowed()).isTrue();
		assertThat(this.store.calls()).isEqualTo(3);
	}

	@Test
	void retryAfterCountsFromTheAnswerSoItIsNeverEarly() {
		RateLimiter slow = (key, permits, limits) -> {
			Decision decision = this.store.acquire(key, permits, limits);
			// The answer arrives 40ms after the call was sent.
			this.clock.advance(Duration.ofMillis(40));
			return decision;
		};
		RateLimiter limiter = RejectionCachingRateLimiter.wrap(slow).clock(this.clock).build();
		limiter.acquire("user", TWO_PER_10S);
		limiter.acquire("user", TWO_PER_10S);
		Decision rejected = limiter.acquire("user", TWO_PER_10S);
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(9920));
		Decision cached = limiter.acquire("user", TWO_PER_10S);
		assertThat(cached.retryAfter()).isEqualTo(Duration.ofMillis(9920));
		assertThat(this.store.calls()).isEqualTo(3);
	}

	@Test
	void aClockThatStepsBackAsksTheStore() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		this.clock.advance(Duration.ofSeconds(-1));
		this.limiter.acquire("user", TWO_PER_10S);
		assertThat(this.store.calls()).isEqualTo(4);
	}

	@Test
	void rememberedBlocksAreBounded() {
		RejectionCachingRateLimiter limiter = (RejectionCachingRateLimiter) RejectionCachingRateLimiter.wrap(this.store)
			.clock(this.clock)
			.maximumSize(3)
			.build();
		Limit onePerSecond = Limit.of(1, Duration.ofSeconds(1));
		for (int i = 0; i < 10; i++) {
			limiter.acquire("user" + i, onePerSecond);
			limiter.acquire("user" + i, onePerSecond);
		}
		assertThat(limiter.size()).isEqualTo(3);
		this.clock.advance(Duration.ofSeconds(1));
		limiter.acquire("late", onePerSecond);
		limiter.acquire("late", onePerSecond);
		assertThat(limiter.size()).isEqualTo(1);
	}

	@Test
	void countingRejectedCallsTurnsItOff() {
		RateLimiter built = RejectionCachingRateLimiter.wrap(this.store).countRejected(true).build();
		assertThat(built).isSameAs(this.store);
	}

	@Test
	void invalidCallsFailEvenWhenBlocked() {
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		this.limiter.acquire("user", TWO_PER_10S);
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.acquire("user", 3, List.of(TWO_PER_10S)))
			.withMessageContaining("permits must be between 1 and the smallest threshold (2)");
	}

	@Test
	void wrapRequiresADelegate() {
		assertThatIllegalArgumentException().isThrownBy(() -> RejectionCachingRateLimiter.wrap(null))
			.withMessage("delegate must not be null");
	}

	private static final class CountingLimiter implements RateLimiter {

		private final RateLimiter delegate;

		private final AtomicInteger calls = new AtomicInteger();

		CountingLimiter(RateLimiter delegate) {
			this.delegate = delegate;
		}

		@Override
		public Decision acquire(String key, long permits, List<Limit> limits) {
			this.calls.incrementAndGet();
			return this.delegate.acquire(key, permits, limits);
		}

		@Override
		public void reset(String key, List<Limit> limits) {
			this.delegate.reset(key, limits);
		}

		@Override
		public boolean finish(Decision decision) {
			return this.delegate.finish(decision);
		}

		int calls() {
			return this.calls.get();
		}

	}

}
