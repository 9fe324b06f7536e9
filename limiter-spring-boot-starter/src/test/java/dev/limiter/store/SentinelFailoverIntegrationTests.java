package dev.limiter.store;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.test.RedisSentinels;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on a replicated Redis under Sentinel, configured through Spring Boot's own
 * {@code spring.data.redis.sentinel.*}: the master is killed while four threads call the
 * limiter, the Sentinels promote the replica, and the limiter follows.
 * <p>
 * Measured and printed: the slowest call, how long until every decision came from Redis
 * again, the calls admitted without Redis meanwhile (fail-open), and the over-admission
 * after the promotion against the exact oracle (admitted calls in any window of W, by the
 * Redis server's clock). Replication is asynchronous, so admissions the old master had
 * recorded but not yet sent to the replica are lost with it; they bound the
 * over-admission.
 */
@Tag("failover")
class SentinelFailoverIntegrationTests {

	private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

	private static final Limit LIMIT = Limit.of("failover", 50, Duration.ofSeconds(1));

	private static final int THREADS = 4;

	private static RedisSentinels redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisSentinels.start(DOWN_AFTER);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void killedMasterFailsOverWithoutErrorsAndLimitingResumesExactly() {
		FailoverLoad
			.application("spring.data.redis.sentinel.master=" + RedisSentinels.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + String.join(",", redis.sentinelAddresses()))
			.run((context) -> {
				assertThat(context.getBean(LettuceConnectionFactory.class).isRedisSentinelAware()).isTrue();
				assertThat(context.getBean(LimiterRedisConnection.class).isDedicated()).isTrue();
				RateLimiter limiter = context.getBean(RateLimiter.class);
				FailoverLoad load = new FailoverLoad(limiter, LIMIT, THREADS);
				load.start();
				try {
					// Two full windows on the master (and its replica) before it dies.
					load.runFor(LIMIT.period().multipliedBy(2));
					long killedAt = System.nanoTime();
					redis.master().kill();
					redis.awaitMasterOtherThan(redis.master(), Duration.ofSeconds(30));
					long promotedAt = System.nanoTime();
					// Calls go on until the limiter has answered from the new master for
					// a
					// while.
					load.awaitExactFor(killedAt + DOWN_AFTER.toNanos(), Duration.ofSeconds(2), Duration.ofSeconds(60));
					load.stop();
					FailoverLoad.Figures figures = load.figures(killedAt);
					System.out.printf("sentinel failover: promoted %d ms after the kill; %s%n",
							TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt), figures.describe(LIMIT));
					figures.assertCalm(LIMIT);
				}
				finally {
					load.stop();
				}
			});
	}

}
