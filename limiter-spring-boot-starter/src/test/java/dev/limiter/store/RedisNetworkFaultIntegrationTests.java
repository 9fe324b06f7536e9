package dev.limiter.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.redis.LimiterConnectionFactories;
import dev.limiter.resilience.ResilientRateLimiter;
import dev.limiter.test.FaultProxy;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slow, partitioned or resetting network between the application and a real
 * {@code redis-server}, through the test support's {@link FaultProxy}: no call waits
 * longer than the timeout plus the read grace, Redis decides where it answers in time and
 * the failure policy where it does not, nothing is admitted beyond what the policy
 * allows, and limiting goes back to Redis once the network does. The figures are in
 * docs/operations.md.
 */
class RedisNetworkFaultIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	private static final Duration OPEN = Duration.ofMillis(500);

	private static final int THREADS = 4;

	private static final int CALLS = 10;

	private static final int THRESHOLD = 10;

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
	void latencyUnderTheTimeoutIsRedisAndOverItThePolicyNeverLongerThanTheTimeoutPlusTheGrace() {
		try (FaultProxy proxy = FaultProxy.to(redis)) {
			instance(proxy).run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				ResilientRateLimiter resilient = context.getBean(ResilientRateLimiter.class);
				Duration bound = TIMEOUT.plus(LimiterConnectionFactories.READ_GRACE);
				for (double ratio : new double[] { 0.5, 1, 3 }) {
					// Half the round trip each way, with a tenth of it as jitter.
					long roundTrip = (long) (TIMEOUT.toMillis() * ratio);
					proxy.latency(Duration.ofMillis(roundTrip * 9 / 20), Duration.ofMillis(roundTrip / 10));
					Load load = load(limiter, "latency-" + ratio);
					System.out.printf(
							"latency %.1f× the timeout (%d ms round trip): slowest call %d ms, %d of %d decided by "
									+ "the policy, %d admitted of %d allowed by Redis and the local policy%n",
							ratio, roundTrip, load.slowest.toMillis(), load.degraded, load.decisions.size(),
							load.admitted, 2 * THRESHOLD);
					assertThat(load.slowest).as("slowest call").isLessThan(bound);
					assertThat(load.admitted).as("Redis's threshold, and the local one while Redis is late")
						.isLessThanOrEqualTo(2 * THRESHOLD);
					if (ratio < 1) {
						assertThat(load.degraded).as("Redis answers in time").isZero();
						assertThat(load.admitted).isEqualTo(THRESHOLD);
					}
					if (ratio > 1) {
						assertThat(load.decisions).as("Redis never answers in time")
							.allSatisfy((decision) -> assertThat(decision.policy()).isEqualTo(FailurePolicy.LOCAL));
						assertThat(load.admitted).as("the local policy's threshold").isEqualTo(THRESHOLD);
						assertThat(resilient.breakerState()).isNotEqualTo(ResilientRateLimiter.BreakerState.CLOSED);
					}
				}
				proxy.recover();
				long recovered = awaitRedis(limiter);
				System.out.printf("latency back to none: Redis decides again %d ms later (open duration %d ms)%n",
						recovered, OPEN.toMillis());
				assertThat(resilient.breakerState()).isEqualTo(ResilientRateLimiter.BreakerState.CLOSED);
				Load after = load(limiter, "after-latency");
				assertThat(after.degraded).as("the breaker stays closed once latency drops").isZero();
				assertThat(after.admitted).isEqualTo(THRESHOLD);
			});
		}
	}

	@Test
	void aBlackholedInstanceDegradesWhileAnotherStaysExactAndBothRecover() {
		try (FaultProxy proxy = FaultProxy.to(redis)) {
			instance(proxy).run((blackholed) -> instance(null).run((healthy) -> {
				RateLimiter first = blackholed.getBean(RateLimiter.class);
				RateLimiter second = healthy.getBean(RateLimiter.class);
				Limit limit = Limit.of(THRESHOLD, Duration.ofMinutes(1));
				assertThat(first.acquire("partition-warm", limit).isDegraded()).isFalse();
				proxy.blackhole();
				Load cut = load(first, "partition");
				Load exact = load(second, "partition");
				long heldEntries = (Long) redis.command("ZCARD", "limiter:{partition}:w60000");
				System.out.printf(
						"blackhole: the cut instance's slowest call %d ms, %d of %d decided by the policy, %d "
								+ "admitted; the other %d of %d by Redis, %d admitted; Redis counted %d%n",
						cut.slowest.toMillis(), cut.degraded, cut.decisions.size(), cut.admitted,
						exact.decisions.size() - exact.degraded, exact.decisions.size(), exact.admitted, heldEntries);
				assertThat(cut.slowest).isLessThan(TIMEOUT.plus(LimiterConnectionFactories.READ_GRACE));
				assertThat(cut.decisions).allSatisfy((decision) -> assertThat(decision.isDegraded()).isTrue());
				assertThat(cut.admitted).as("the cut instance's local threshold").isEqualTo(THRESHOLD);
				assertThat(exact.degraded).as("the other instance keeps its Redis").isZero();
				assertThat(exact.admitted).as("exact: nothing of the cut instance reached Redis").isEqualTo(THRESHOLD);
				proxy.recover();
				long recovered = awaitRedis(first);
				// The cut instance's held requests reach Redis when the partition heals,
				// as
				// TCP delivers them late: counted, they only make the limit stricter.
				long afterHeal = (Long) redis.command("ZCARD", "limiter:{partition}:w60000");
				System.out.printf(
						"blackhole healed: Redis decides again %d ms later; Redis counted %d more once the held requests arrived%n",
						recovered, afterHeal - heldEntries);
				assertThat(afterHeal).isGreaterThanOrEqualTo(heldEntries);
				assertThat(first.acquire("partition", limit).isAllowed()).as("one quota again").isFalse();
				assertThat(second.acquire("partition", limit).isAllowed()).isFalse();
			}));
		}
	}

	/**
	 * A connection reset after the script ran and before its reply arrived: Redis counted
	 * the call once (nothing is replayed: the limiter's connection rejects commands while
	 * disconnected), the caller gets its failure policy's decision, counted in memory
	 * too. The call is counted twice overall, which makes the limit stricter, never
	 * looser.
	 */
	@Test
	void aConnectionResetMidScriptCountsTheCallOnceInRedis() {
		try (FaultProxy proxy = FaultProxy.to(redis)) {
			instance(proxy).run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				Limit limit = Limit.of(THRESHOLD, Duration.ofMinutes(1));
				assertThat(limiter.acquire("reset", limit).isDegraded()).isFalse();
				proxy.resetOnReplyTo("EVALSHA");
				Decision lost = limiter.acquire("reset", limit);
				assertThat(lost.isDegraded()).as("the reply was lost").isTrue();
				assertThat(lost.policy()).isEqualTo(FailurePolicy.LOCAL);
				assertThat(redis.command("ZCARD", "limiter:{reset}:w60000")).as("the script ran once").isEqualTo(2L);
				long recovered = awaitRedis(limiter);
				assertThat(redis.command("ZCARD", "limiter:{reset}:w60000")).as("nothing replayed").isEqualTo(2L);
				System.out.printf("reset mid-script: Redis counted the call once; Redis decides again %d ms later%n",
						recovered);
			});
		}
	}

	private static ApplicationContextRunner instance(FaultProxy proxy) {
		String host = (proxy != null) ? proxy.host() : redis.host();
		int port = (proxy != null) ? proxy.port() : redis.port();
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port)))
			.withPropertyValues("limiter.timeout=" + TIMEOUT.toMillis() + "ms",
					"limiter.breaker.open-duration=" + OPEN.toMillis() + "ms");
	}

	/** Wait until Redis decides a call again; the milliseconds it took. */
	private static long awaitRedis(RateLimiter limiter) {
		long start = System.nanoTime();
		Limit probe = Limit.of(1_000_000, Duration.ofMinutes(1));
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !limiter.acquire("recovery", probe).isDegraded());
		return (System.nanoTime() - start) / 1_000_000;
	}

	/** {@link #THREADS} threads × {@link #CALLS} calls of one key. */
	private static Load load(RateLimiter limiter, String key) throws Exception {
		Limit limit = Limit.of(THRESHOLD, Duration.ofMinutes(1));
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<List<Timed>>> futures = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				futures.add(pool.submit(() -> {
					List<Timed> timed = new ArrayList<>();
					for (int i = 0; i < CALLS; i++) {
						long start = System.nanoTime();
						Decision decision = limiter.acquire(key, limit);
						timed.add(new Timed(decision, Duration.ofNanos(System.nanoTime() - start)));
					}
					return timed;
				}));
			}
			Load load = new Load();
			for (Future<List<Timed>> future : futures) {
				for (Timed timed : future.get()) {
					load.decisions.add(timed.decision);
					load.slowest = (timed.took.compareTo(load.slowest) > 0) ? timed.took : load.slowest;
					load.admitted += timed.decision.isAllowed() ? 1 : 0;
					load.degraded += timed.decision.isDegraded() ? 1 : 0;
				}
			}
			return load;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private record Timed(Decision decision, Duration took) {
	}

	private static final class Load {

		final List<Decision> decisions = new ArrayList<>();

		Duration slowest = Duration.ZERO;

		long admitted;

		long degraded;

	}

}
