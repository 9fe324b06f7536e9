package dev.limiter.store;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
import dev.limiter.resilience.ResilientRateLimiter;
import dev.limiter.test.FaultProxy;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A busy Redis is not a dead one: two instances with the default settings (50 ms timeout,
 * breaker after 3 failures) reach one Redis through a proxy that adds 20 to 150 ms to
 * every round trip. Redis answers every call, so a 2-per-10-s limit must admit 2 per key
 * across both instances; one that treats slowness as absence counts alone on each
 * instance and admits up to twice as many. A Redis that stops answering (the proxy holds
 * every byte) is still told from a slow one within a few hundred milliseconds.
 */
@Tag("slow-redis")
class BusyRedisIntegrationTests {

	private static final int KEYS = 30;

	private static final int CALLS_PER_KEY = 10;

	private static final Limit LIMIT = Limit.of(2, Duration.ofSeconds(10));

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@Test
	void aRedisAnsweringWithin150MsIsNeverTreatedAsGone() {
		try (FaultProxy proxy = FaultProxy.to(redis)) {
			instance(proxy).run((first) -> instance(proxy).run((second) -> {
				RateLimiter[] instances = { first.getBean(RateLimiter.class), second.getBean(RateLimiter.class) };
				ResilientRateLimiter breaker = first.getBean(ResilientRateLimiter.class);
				// each way 10 ms and up to 65 ms more: a round trip of 20 to 150 ms
				proxy.latency(Duration.ofMillis(10), Duration.ofMillis(65));
				int admitted = 0;
				int degraded = 0;
				long start = System.nanoTime();
				for (int key = 0; key < KEYS; key++) {
					for (int call = 0; call < CALLS_PER_KEY; call++) {
						Decision decision = instances[call % 2].acquire("busy-" + key, LIMIT);
						admitted += decision.isAllowed() ? 1 : 0;
						degraded += decision.isDegraded() ? 1 : 0;
					}
				}
				long took = (System.nanoTime() - start) / 1_000_000;
				System.out.printf(
						"busy Redis (20-150 ms round trips): %d admitted of %d allowed (%d keys × %d calls over two "
								+ "instances), %d decided without Redis, in %d ms; breaker %s%n",
						admitted, KEYS * LIMIT.threshold(), KEYS, CALLS_PER_KEY, degraded, took,
						breaker.breakerState());
				// An instance learns how long Redis takes from its answers: its first
				// slow call
				// may time out before it has seen one, and is decided by the failure
				// policy.
				assertThat(degraded).as("calls that timed out while learning").isLessThanOrEqualTo(4);
				assertThat(admitted).as("exact where Redis decided: it answered every call")
					.isLessThanOrEqualTo(KEYS * (int) LIMIT.threshold() + degraded);
				assertThat(breaker.breakerState()).isEqualTo(ResilientRateLimiter.BreakerState.CLOSED);
			}));
		}
	}

	@Test
	void aRedisThatStopsAnsweringIsStillToldWithinAFewHundredMilliseconds() {
		try (FaultProxy proxy = FaultProxy.to(redis)) {
			instance(proxy).run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				ResilientRateLimiter breaker = context.getBean(ResilientRateLimiter.class);
				Limit limit = Limit.of(1_000_000, Duration.ofMinutes(1));
				for (int i = 0; i < 50; i++) {
					assertThat(limiter.acquire("gone", limit).isDegraded()).isFalse();
				}
				proxy.blackhole();
				long start = System.nanoTime();
				while (breaker.breakerState() == ResilientRateLimiter.BreakerState.CLOSED
						&& System.nanoTime() - start < Duration.ofSeconds(5).toNanos()) {
					limiter.acquire("gone", limit);
					LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
				}
				long took = (System.nanoTime() - start) / 1_000_000;
				System.out.printf("held Redis: the breaker opened %d ms after the last answer%n", took);
				assertThat(breaker.breakerState()).isEqualTo(ResilientRateLimiter.BreakerState.OPEN);
				assertThat(took).isLessThan(1_000);
			});
		}
	}

	private static ApplicationContextRunner instance(FaultProxy proxy) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port())));
	}

}
