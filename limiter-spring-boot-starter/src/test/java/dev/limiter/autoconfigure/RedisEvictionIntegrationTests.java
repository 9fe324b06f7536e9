package dev.limiter.autoconfigure;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.actuate.HealthApi;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that drops keys when it is full forgets counters and lets callers in again
 * without a word: the start and the health say so plainly. A full Redis that never drops
 * keys refuses the limits' writes: the failure policy decides, the health says why, and
 * counting resumes in Redis when memory frees.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisEvictionIntegrationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void aRedisThatEvictsWhenFullIsNamedAtStartup(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")) {
			this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(output)
				.contains("drops keys when it is full (maxmemory-policy allkeys-lru, maxmemory " + 64 * 1024 * 1024
						+ " bytes)")
				.contains("maxmemory-policy noeviction");
		}
	}

	@Test
	void aRedisThatNeverEvictsIsNotWarnedAbout(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "noeviction")) {
			this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(output).doesNotContain("drops keys when it is full");
		}
	}

	@Test
	void theHealthOfARedisThatEvictsSaysWhatItCosts() {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "volatile-ttl")) {
			this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterHealthAutoConfiguration.class))
				.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.run((context) -> {
					Object indicator = context.getBean("limiterHealthIndicator");
					assertThat(HealthApi.status(indicator)).isEqualTo("UP");
					assertThat(HealthApi.details(indicator).get("eviction")).asString()
						.contains("maxmemory-policy volatile-ttl")
						.contains("limits can be exceeded")
						.contains("maxmemory-policy noeviction");
				});
		}
	}

	/**
	 * The sliding log's script first removes the entries that left its window, a write
	 * that a full Redis allows, and a script that has written runs to its end: the log
	 * keeps counting exactly, slightly past maxmemory. The other algorithms' first write
	 * grows memory and is refused with OOM: the failure policy decides.
	 */
	@Test
	void aFullRedisLetsTheFailurePolicyDecideAndCountingResumesWhenMemoryFrees() {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "noeviction")) {
			this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterHealthAutoConfiguration.class))
				.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.withPropertyValues("limiter.breaker.open-duration=100ms")
				.run((context) -> {
					RateLimiter limiter = context.getBean(RateLimiter.class);
					Object indicator = context.getBean("limiterHealthIndicator");
					// Memory above maxmemory: Redis refuses every write that grows it.
					redis.command("SET", "filler", "x".repeat(4 * 1024 * 1024));
					redis.command("CONFIG", "SET", "maxmemory", "3mb");
					assertThat(redis.command("SET", "probe", "1")).asString().contains("OOM");
					List<Decision> log = acquire(limiter, "log", Limit.of(3, Duration.ofMinutes(1)), 5);
					assertThat(log).noneMatch(Decision::isDegraded);
					assertThat(log).extracting(Decision::isAllowed).containsExactly(true, true, true, false, false);
					assertThat(redis.command("EXISTS", "limiter:{logSLIDING_LOG}:w60000")).isEqualTo(1L);
					for (Limit limit : List.of(
							Limit.of(3, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS),
							Limit.of(3, Duration.ofMinutes(1)).withAlgorithm(Algorithm.TOKEN_BUCKET),
							Limit.of(3, Duration.ofDays(1)).withCalendar(ChronoUnit.DAYS, ZoneOffset.UTC))) {
						List<Decision> refused = acquire(limiter, "other", limit, 5);
						assertThat(refused).as(limit.toString()).allSatisfy((decision) -> {
							assertThat(decision.isDegraded()).isTrue();
							assertThat(decision.policy()).isEqualTo(FailurePolicy.LOCAL);
						});
						assertThat(refused).extracting(Decision::isAllowed)
							.as("the local policy keeps the limit")
							.containsExactly(true, true, true, false, false);
					}
					assertThat(HealthApi.status(indicator)).isEqualTo("DOWN");
					assertThat(HealthApi.details(indicator).get("error")).asString()
						.contains("Redis is out of memory")
						.contains("OOM command not allowed")
						.contains("failure policy");
					redis.command("DEL", "filler");
					Limit bucket = Limit.of(3, Duration.ofMinutes(1)).withAlgorithm(Algorithm.TOKEN_BUCKET);
					Awaitility.await()
						.atMost(Duration.ofSeconds(10))
						.until(() -> !limiter.acquire("after", bucket).isDegraded());
					assertThat(redis.command("KEYS", "*after*")).asList().isNotEmpty();
					assertThat(HealthApi.status(indicator)).isEqualTo("UP");
				});
		}
	}

	private static List<Decision> acquire(RateLimiter limiter, String key, Limit limit, int calls) {
		List<Decision> decisions = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			decisions.add(limiter.acquire(key + limit.algorithm(), limit));
		}
		return decisions;
	}

	private static LettuceConnectionFactory factory(RedisServer redis) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
	}

}
