package dev.limiter.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;

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

}
