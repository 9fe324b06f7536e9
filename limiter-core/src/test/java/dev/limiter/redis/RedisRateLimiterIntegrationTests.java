package dev.limiter.redis;

import dev.limiter.internal.redis.RedisKeys;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.SlidingWindowOracle;
import dev.limiter.test.MutableClock;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisRateLimiterIntegrationTests extends RateLimiterContractTests {

	private final RedisServer redis = RedisServer.shared();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@BeforeEach
	void flush() {
		this.redis.flushAll();
	}

	@AfterEach
	void closeFactories() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Override
	protected RateLimiter limiter(Clock clock, boolean countRejected) {
		return RedisRateLimiter.builder(connectionFactory(this.redis))
			.clock(clock)
			.countRejected(countRejected)
			.build();
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		// Each instance has its own connection factory, as separate applications would.
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			instances.add(RedisRateLimiter.builder(connectionFactory(this.redis)).build());
		}
		return instances;
	}

	/**
	 * The end of a call in flight, and the refund of a sliding log's call, remove the
	 * call's members and nothing else: no trim, no count, no penalty read before it.
	 */
	@Test
	void anEndRemovesItsMembersWithoutLoadingTheLimit() {
		RateLimiter limiter = limiter(Clock.systemUTC(), false);
		Limit inFlight = Limit.of("slots", 5, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Limit log = Limit.of("log", 5, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_LOG);
		Decision held = limiter.acquire("k", inFlight);
		Decision logged = limiter.acquire("k", log);
		assertThat(held.isAllowed()).isTrue();
		assertThat(logged.isAllowed()).isTrue();
		Map<String, Long> before = commandCalls();
		assertThat(limiter.finish(held)).isTrue();
		assertThat(limiter.release(logged)).isTrue();
		Map<String, Long> after = commandCalls();
		assertThat(after.get("zrem") - before.getOrDefault("zrem", 0L)).as("members removed").isEqualTo(2);
		assertThat(after.getOrDefault("zremrangebyscore", 0L)).as("trims").isEqualTo(before.get("zremrangebyscore"));
		assertThat(after.getOrDefault("zcard", 0L)).as("counts").isEqualTo(before.get("zcard"));
		assertThat(after.getOrDefault("get", 0L)).as("penalties read").isEqualTo(before.getOrDefault("get", 0L));
		assertThat(limiter.usage("k", List.of(inFlight)).get(0).used()).isZero();
		assertThat(limiter.usage("k", List.of(log)).get(0).used()).isZero();
	}

	/** The calls of each command Redis ran, scripts' commands included. */
	private Map<String, Long> commandCalls() {
		Map<String, Long> calls = new HashMap<>();
		String stats = this.redis.command("INFO", "commandstats").toString();
		java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)")
			.matcher(stats);
		while (matcher.find()) {
			calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
		}
		return calls;
	}

	private LettuceConnectionFactory connectionFactory(RedisServer server) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		factory.afterPropertiesSet();
		this.factories.add(factory);
		return factory;
	}

	@Test
	void serverTimeOracleFindsNoViolationUnderConcurrentRandomArrivals() throws Exception {
		List<RateLimiter> instances = instances(2);
		Limit limit = Limit.of(5, Duration.ofMillis(200));
		List<long[]> decisions = java.util.Collections.synchronizedList(new ArrayList<>());
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RateLimiter instance = instances.get(t % 2);
				futures.add(executor.submit(() -> {
					for (int i = 0; i < 60; i++) {
						// Random gaps between arrivals: this is the workload, not a wait
						// for an
						// outcome.
						LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000_000));
						Decision decision = instance.acquire("oracle", limit);
						decisions.add(new long[] { decision.decidedAtMicros(), decision.isAllowed() ? 1 : 0 });
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		// Redis runs scripts one at a time, so server time orders the decisions.
		List<long[]> ordered = new ArrayList<>(decisions);
		ordered.sort(Comparator.comparingLong((long[] d) -> d[0]).thenComparingLong((long[] d) -> -d[1]));
		SlidingWindowOracle oracle = new SlidingWindowOracle(limit);
		long spanMicros = ordered.get(ordered.size() - 1)[0] - ordered.get(0)[0];
		for (long[] decision : ordered) {
			oracle.check(decision[0], 1, decision[1] == 1);
		}
		assertThat(spanMicros).as("covers several windows").isGreaterThan(3 * limit.periodMicros());
		assertThat(oracle.admitted()).isGreaterThan(10);
		assertThat(oracle.violations()).isEmpty();
	}

	@Test
	void sameMicrosecondCallsAreAllStoredAsSeparateMembers() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = limiter(clock, false);
		Limit limit = Limit.of(50, Duration.ofSeconds(5));
		for (int i = 0; i < 50; i++) {
			limiter.acquire("frozen", limit);
		}
		limiter.acquire("frozen", 1, List.of(Limit.of(60, Duration.ofSeconds(6))));
		assertThat(this.redis.command("ZCARD", RedisKeys.key("limiter:", "frozen", limit))).isEqualTo(50L);
		assertThat(this.redis.command("ZCOUNT", RedisKeys.key("limiter:", "frozen", limit), "-inf", "+inf"))
			.isEqualTo(50L);
	}

	@Test
	void severalPermitsAreStoredAsSeveralMembers() {
		RateLimiter limiter = limiter(MutableClock.startingNow(), false);
		Limit limit = Limit.of(10, Duration.ofSeconds(5));
		limiter.acquire("bulk", 4, List.of(limit));
		assertThat(this.redis.command("ZCARD", RedisKeys.key("limiter:", "bulk", limit))).isEqualTo(4L);
	}

	@Test
	void everyKeyHasATimeToLiveOfAtMostThePeriod() {
		RateLimiter limiter = instances(1).get(0);
		Limit burst = Limit.of(3, Duration.ofSeconds(1));
		Limit sustained = Limit.of(5, Duration.ofSeconds(10));
		limiter.acquire("ttl", burst, sustained);
		assertThat((Long) this.redis.command("PTTL", RedisKeys.key("limiter:", "ttl", burst))).isBetween(1L, 1_000L);
		assertThat((Long) this.redis.command("PTTL", RedisKeys.key("limiter:", "ttl", sustained))).isBetween(1L,
				10_000L);
		assertThat(this.redis.command("DBSIZE")).isEqualTo(2L);
	}

	@Test
	void keysDisappearAfterAPeriodOfSilence() {
		RateLimiter limiter = instances(1).get(0);
		Limit limit = Limit.of(3, Duration.ofMillis(50));
		limiter.acquire("silent", limit);
		limiter.acquire("silent", limit);
		assertThat(this.redis.command("DBSIZE")).isEqualTo(1L);
		// Redis expires keys on its own schedule: wait for the event, bounded.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while ((Long) this.redis.command("DBSIZE") > 0 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.redis.command("DBSIZE")).isEqualTo(0L);
	}

	@Test
	void countedRejectionsKeepTheLogBounded() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = limiter(clock, true);
		Limit limit = Limit.of(3, Duration.ofSeconds(10));
		for (int i = 0; i < 100; i++) {
			limiter.acquire("flood", limit);
			clock.advance(Duration.ofMillis(10));
		}
		assertThat(this.redis.command("ZCARD", RedisKeys.key("limiter:", "flood", limit))).isEqualTo(3L);
	}

	@Test
	void invalidArgumentsWriteNothing() {
		RateLimiter limiter = instances(1).get(0);
		Limit limit = Limit.of(3, Duration.ofSeconds(10));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("k", 4, List.of(limit)));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("", limit));
		assertThat(this.redis.command("DBSIZE")).isEqualTo(0L);
	}

	@Test
	void keyPrefixIsApplied() {
		RateLimiter limiter = RedisRateLimiter.builder(connectionFactory(this.redis)).keyPrefix("app1:rl:").build();
		Limit limit = Limit.of(3, Duration.ofSeconds(10));
		limiter.acquire("k", limit);
		assertThat(this.redis.command("EXISTS", "app1:rl:{k}:w10000")).isEqualTo(1L);
	}

	@Test
	void runsThroughATemplateAndASharedLettuceConnectionToo() {
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory(this.redis));
		template.afterPropertiesSet();
		RateLimiter throughTemplate = RedisRateLimiter.builder(template).build();
		RedisClient client = RedisClient.create(this.redis.uri());
		try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
			RateLimiter onSharedConnection = RedisRateLimiter.builder(connection.async(), Duration.ofSeconds(5))
				.build();
			Limit limit = Limit.of(3, Duration.ofSeconds(10));
			assertThat(throughTemplate.acquire("paths", limit).remaining()).isEqualTo(2);
			this.redis.command("SCRIPT", "FLUSH");
			assertThat(onSharedConnection.acquire("paths", limit).remaining()).isEqualTo(1);
			this.redis.command("SCRIPT", "FLUSH");
			assertThat(throughTemplate.acquire("paths", limit).remaining()).isZero();
			assertThat(onSharedConnection.acquire("paths", limit).isAllowed()).isFalse();
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void aTemplatesNonBlockingCallsRunOnTheExecutorsOwnThreadsNotTheCommonPool() throws Exception {
		String[] thread = new String[1];
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory(this.redis)) {

			@Override
			public <T> T execute(org.springframework.data.redis.core.RedisCallback<T> action) {
				thread[0] = Thread.currentThread().getName();
				return super.execute(action);
			}

		};
		template.afterPropertiesSet();
		try (RedisScriptExecutor executor = RedisScriptExecutor.of(template)) {
			List<Long> reply = executor
				.executeAsync(
						new org.springframework.data.redis.core.script.DefaultRedisScript<>(
								"return {tonumber(ARGV[1])}", List.class),
						new byte[0][], new byte[][] { "7".getBytes() })
				.get(5, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(reply).containsExactly(7L);
			assertThat(thread[0]).startsWith("limiter-template-");
		}
	}

	@Test
	void worksAfterScriptFlush() {
		RateLimiter limiter = instances(1).get(0);
		Limit limit = Limit.of(2, Duration.ofSeconds(10));
		assertThat(limiter.acquire("flushed", limit).isAllowed()).isTrue();
		this.redis.command("SCRIPT", "FLUSH");
		assertThat(limiter.acquire("flushed", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("flushed", limit).isAllowed()).isFalse();
	}

	@Test
	void worksAfterServerRestart() {
		try (RedisServer own = RedisServer.start()) {
			RateLimiter limiter = RedisRateLimiter.builder(connectionFactory(own)).build();
			Limit limit = Limit.of(2, Duration.ofSeconds(10));
			assertThat(limiter.acquire("restarted", limit).isAllowed()).isTrue();
			own.restart();
			// The restarted server has neither the script nor the data.
			assertThat(limiter.acquire("restarted", limit).isAllowed()).isTrue();
			assertThat(limiter.acquire("restarted", limit).remaining()).isZero();
		}
	}

	@Test
	void hostileKeysStayInOneSlotAndBounded() {
		RateLimiter limiter = instances(1).get(0);
		Limit burst = Limit.of(3, Duration.ofSeconds(1));
		Limit sustained = Limit.of(5, Duration.ofSeconds(10));
		String hostile = "}{evil}" + "ü".repeat(5_000);
		assertThat(limiter.acquire(hostile, burst, sustained).isAllowed()).isTrue();
		String first = RedisKeys.key("limiter:", hostile, burst);
		String second = RedisKeys.key("limiter:", hostile, sustained);
		assertThat(first.length()).isLessThan(100);
		assertThat(SlotHash.getSlot(first)).isEqualTo(SlotHash.getSlot(second))
			.isEqualTo(SlotHash.getSlot("{" + RedisKeys.tag(hostile) + "}"));
	}

}
