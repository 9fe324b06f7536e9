package dev.limiter.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.limiter.Algorithm;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InMemoryRateLimiterTests extends RateLimiterContractTests {

	@Override
	protected RateLimiter limiter(Clock clock, boolean countRejected) {
		return new InMemoryRateLimiter(clock, countRejected);
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		// One JVM, one store: every "instance" is the same limiter.
		return Collections.nCopies(count, new InMemoryRateLimiter());
	}

	@Test
	void idleKeysAreEvictedOnceTheirWindowsEmpty() {
		MutableClock clock = MutableClock.startingNow();
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(10));
		for (int i = 0; i < 500; i++) {
			limiter.acquire("user-" + i, limit);
		}
		assertThat(limiter.size()).isEqualTo(500);
		clock.advance(Duration.ofSeconds(10).minusNanos(1_000));
		limiter.evictExpired();
		assertThat(limiter.size()).isEqualTo(500);
		clock.advance(Duration.ofNanos(1_000));
		limiter.evictExpired();
		assertThat(limiter.size()).isZero();
	}

	@Test
	void sweepRunsAsCallsComeInWithoutAnExplicitCall() {
		MutableClock clock = MutableClock.startingNow();
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock, false);
		Limit limit = Limit.of(1, Duration.ofSeconds(1));
		for (int i = 0; i < 1_000; i++) {
			limiter.acquire("old-" + i, limit);
		}
		clock.advance(Duration.ofSeconds(2));
		for (int i = 0; i < 2_000; i++) {
			limiter.acquire("new-" + (i % 10), limit);
		}
		assertThat(limiter.size()).isEqualTo(10);
	}

	/**
	 * Concurrent callers read the clock before they take the key's monitor, so a call can
	 * arrive with a time earlier than the decision made just before it. It counts as made
	 * at that decision's time: a token bucket would otherwise see less refill than it
	 * granted and reject a call that fits.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void aCallThatReadTheClockBeforeTheKeysLastDecisionCountsAtThatDecision(Algorithm algorithm) {
		MutableClock clock = MutableClock.startingNow();
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock, false);
		Limit limit = Limit.of(7, Duration.ofHours(1)).withAlgorithm(algorithm);
		assertThat(limiter.acquire("late", 6, List.of(limit)).isAllowed()).isTrue();
		clock.advance(Duration.ofMillis(-1));
		Decision seventh = limiter.acquire("late", 1, List.of(limit));
		assertThat(seventh.isAllowed()).isTrue();
		assertThat(seventh.remaining()).isZero();
		assertThat(limiter.acquire("late", 1, List.of(limit)).isAllowed()).isFalse();
	}

	@Test
	void aLogNeverHoldsMoreThanTheThreshold() {
		MutableClock clock = MutableClock.startingNow();
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock, true);
		Limit limit = Limit.of(3, Duration.ofSeconds(10));
		for (int i = 0; i < 100; i++) {
			limiter.acquire("flood", limit);
		}
		clock.advance(Duration.ofSeconds(10));
		assertThat(limiter.acquire("flood", limit).isAllowed()).isTrue();
	}

	@Test
	void aFullLimiterEvictsTheLeastRecentlyUsedKeyAndCountsEveryCall() {
		MutableClock clock = MutableClock.startingNow();
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(clock, false, 3);
		Limit limit = Limit.of(1, Duration.ofSeconds(10));
		for (String key : List.of("a", "b", "c", "a", "b")) {
			assertThat(limiter.acquire(key, limit).isDegraded()).isFalse();
		}
		Decision newcomer = limiter.acquire("d", limit);
		assertThat(newcomer.isAllowed()).isTrue();
		assertThat(newcomer.isDegraded()).as("counted, not admitted blind").isFalse();
		assertThat(newcomer.remaining()).isZero();
		assertThat(limiter.acquire("d", limit).isAllowed()).as("d is counted").isFalse();
		assertThat(limiter.evictedLiveKeys()).as("c, the least recently used").isEqualTo(1);
		assertThat(limiter.size()).isEqualTo(3);
		assertThat(limiter.acquire("a", limit).isAllowed()).as("keys in use stay limited").isFalse();
		assertThat(limiter.acquire("b", limit).isAllowed()).isFalse();
		assertThat(limiter.acquire("c", limit).isAllowed()).as("c forgot its count").isTrue();
		assertThat(limiter.evictedLiveKeys()).as("then d, the least recently used").isEqualTo(2);
		clock.advance(Duration.ofSeconds(10));
		assertThat(limiter.acquire("e", limit).isAllowed()).isTrue();
		assertThat(limiter.evictedLiveKeys()).as("expired keys make room first").isEqualTo(2);
	}

	@Test
	void aMaximumBelowOneIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new InMemoryRateLimiter(Clock.systemUTC(), false, 0))
			.withMessageContaining("maximumKeys");
	}

}
