package dev.limiter.store;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Redis too small for its keys does to limits, measured: with an evicting policy
 * the counters Redis drops admit their callers again; with {@code noeviction} the sliding
 * log keeps counting exactly. The figures are in docs/operations.md.
 */
@Tag("flood")
class EvictionPressureIntegrationTests {

	private static final int CALLERS = 20_000;

	private static final int CALLS = 12;

	private static final int THRESHOLD = 10;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void anEvictingRedisTooSmallForItsKeysAdmitsCallersAgain() {
		long[] outcome = flood("allkeys-lru");
		System.out.printf("eviction pressure, allkeys-lru: %s%n", describe(outcome));
		assertThat(outcome[0]).as("over-admitted: dropped counters admit their callers again").isPositive();
		assertThat(outcome[1]).as("no call is decided by the failure policy").isZero();
	}

	/**
	 * The sliding log's script first removes the entries that left its window, a write
	 * that a full Redis allows, and Redis lets a script that has written run to its end:
	 * the log stays exact and grows past maxmemory (the other algorithms are refused, see
	 * RedisEvictionIntegrationTests).
	 */
	@Test
	void aFullRedisThatNeverEvictsKeepsTheLogExactPastItsMaxmemory() {
		long[] outcome = flood("noeviction");
		System.out.printf("eviction pressure, noeviction: %s%n", describe(outcome));
		assertThat(outcome[0]).as("over-admitted").isZero();
		assertThat(outcome[1]).as("decided by the failure policy").isZero();
		assertThat(outcome[2]).as("used memory past maxmemory").isGreaterThan(outcome[3]);
	}

	private static String describe(long[] outcome) {
		return String.format(
				"%d callers × %d calls, %d per window: %d over-admitted (%.1f%% of the %d allowed), %d decided by "
						+ "the failure policy, Redis used %d KB of %d KB",
				CALLERS, CALLS, THRESHOLD, outcome[0], 100.0 * outcome[0] / ((long) CALLERS * THRESHOLD),
				(long) CALLERS * THRESHOLD, outcome[1], outcome[2] / 1024, outcome[3] / 1024);
	}

	/**
	 * Call every caller {@link #CALLS} times in rounds against a Redis with room for
	 * about a third of their keys; over-admitted, degraded, used memory, maxmemory.
	 */
	private long[] flood(String policy) {
		long maxmemory = 3L * 1024 * 1024;
		long[] outcome = new long[4];
		try (RedisServer redis = RedisServer.start("--maxmemory", Long.toString(maxmemory), "--maxmemory-policy",
				policy)) {
			this.contextRunner
				.withBean(LettuceConnectionFactory.class,
						() -> new LettuceConnectionFactory(
								new RedisStandaloneConfiguration(redis.host(), redis.port())))
				.run((context) -> {
					RateLimiter limiter = context.getBean(RateLimiter.class);
					Limit limit = Limit.of(THRESHOLD, Duration.ofHours(1));
					long[] admitted = new long[CALLERS];
					for (int round = 0; round < CALLS; round++) {
						for (int caller = 0; caller < CALLERS; caller++) {
							Decision decision = limiter.acquire("caller-" + caller, limit);
							if (decision.isAllowed()) {
								admitted[caller]++;
							}
							if (decision.isDegraded()) {
								outcome[1]++;
							}
						}
					}
					for (long count : admitted) {
						outcome[0] += Math.max(0, count - THRESHOLD);
					}
					String info = String.valueOf(redis.command("INFO", "memory"));
					outcome[2] = Long.parseLong(info.replaceAll("(?s).*used_memory:(\\d+).*", "$1"));
					outcome[3] = maxmemory;
				});
		}
		return outcome;
	}

}
