package dev.limiter.store;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisServer;
import dev.limiter.test.RedisSentinels;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A planned switch under Sentinel: the master stays alive and is made a replica of the
 * promoted one, so an address that was the master's still answers, read-only. The
 * limiter's connection must not stay there: it confirms it talks to the master and asks
 * the Sentinels again when it does not, and counts on the new master within seconds.
 */
@Tag("failover")
class SentinelSwitchIntegrationTests {

	private static final Limit LIMIT = Limit.of("switch", 1_000_000, Duration.ofMinutes(1));

	private static RedisSentinels redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisSentinels.start(Duration.ofSeconds(1));
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void afterAPlannedSwitchTheLimiterCountsOnTheNewMasterNotOnTheFormerOne() {
		FailoverLoad
			.application("spring.data.redis.sentinel.master=" + RedisSentinels.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + String.join(",", redis.sentinelAddresses()))
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.acquire("before", LIMIT).isDegraded()).isFalse();
				RedisServer former = redis.master();
				redis.failover();
				redis.awaitMasterOtherThan(former, Duration.ofSeconds(30));
				RedisServer promoted = redis.replica();
				long switched = System.nanoTime();
				// counted on the promoted master, where every instance that connects now
				// counts
				Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() -> {
					Decision decision = limiter.acquire("after", LIMIT);
					return !decision.isDegraded()
							&& String.valueOf(promoted.command("KEYS", "*after*")).contains("after");
				});
				long tookMillis = (System.nanoTime() - switched) / 1_000_000;
				System.out.printf("planned Sentinel switch: counted on the new master %d ms after the promotion%n",
						tookMillis);
				assertThat(String.valueOf(promoted.command("ROLE"))).startsWith("[master");
				for (int i = 0; i < 5; i++) {
					assertThat(limiter.acquire("after", LIMIT).isDegraded()).isFalse();
				}
				assertThat(promoted.command("ZCARD",
						(String) ((java.util.List<?>) promoted.command("KEYS", "*after*")).get(0)))
					.as("every call since counted there")
					.isEqualTo(6L);
			});
	}

}
