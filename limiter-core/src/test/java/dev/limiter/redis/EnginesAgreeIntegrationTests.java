package dev.limiter.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.internal.Engines;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.MutableClock;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A differential test: the in-memory engine and Redis on the application's clock decide
 * the same random schedules alike, decision by decision, usage and refunds included, for
 * every algorithm and mixes of them.
 */
class EnginesAgreeIntegrationTests {

	private final RedisServer redis = RedisServer.shared();

	private final LettuceConnectionFactory factory = connectionFactory(this.redis);

	@AfterEach
	void close() {
		this.factory.destroy();
	}

	@Test
	void memoryAndRedisDecideTheSameSchedulesAlike() {
		int schedules = Math.max(300, Integer.getInteger(RateLimiterContractTests.SCHEDULES_PROPERTY, 0));
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		List<String> differences = new ArrayList<>();
		Algorithm[] algorithms = Algorithm.values();
		for (int schedule = 0; schedule < schedules && differences.isEmpty(); schedule++) {
			this.redis.flushAll();
			MutableClock clock = MutableClock.startingNow();
			boolean countRejected = random.nextInt(4) == 0;
			RateLimiter memory = new InMemoryRateLimiter(clock, countRejected);
			RateLimiter redis = RedisRateLimiter.builder(this.factory)
				.clock(clock)
				.countRejected(countRejected)
				.build();
			// A scheduled renewal runs on real time, between the two engines' calls at a
			// different moment of the schedule's clock for each: leases are renewed only
			// when the schedule says so, so both see the same lease ends.
			Engines.of(memory).leases().renewOnlyOnDemand();
			Engines.of(redis).leases().renewOnlyOnDemand();
			List<Limit> limits = new ArrayList<>();
			for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
				Limit limit = Limit.of("l" + i, 1 + random.nextInt(20), Duration.ofMillis(1 + random.nextInt(2_000)))
					.withAlgorithm(algorithms[random.nextInt(algorithms.length)])
					.withSlices(1 + random.nextInt(30));
				if (limit.algorithm() != Algorithm.IN_FLIGHT && random.nextInt(3) == 0) {
					limit = limit.withPenalty(Duration.ofMillis(1 + random.nextInt(2_000)));
				}
				if (limits.stream().noneMatch(limit::sameWindowAs)) {
					limits.add(limit);
				}
			}
			long smallest = limits.stream().mapToLong(Limit::threshold).min().getAsLong();
			List<Decision[]> admitted = new ArrayList<>();
			long realTime = System.nanoTime();
			for (int call = 0; call < 40 && differences.isEmpty(); call++) {
				// Redis expires keys on its own clock: the application's clock must not
				// fall behind it, or Redis forgets state that the schedule still counts.
				long elapsed = System.nanoTime() - realTime;
				realTime += elapsed;
				clock.advance(Duration.ofNanos(Math.max(random.nextInt(400_000) * 1_000L, elapsed + 1_000_000)));
				String where = "seed " + seed + ", schedule " + schedule + " " + limits
						+ (countRejected ? " counting rejections" : "") + ", call " + call + ": ";
				if (!admitted.isEmpty() && random.nextInt(8) == 0) {
					Decision[] pair = admitted.remove(random.nextInt(admitted.size()));
					boolean fromMemory = memory.release(pair[0]);
					boolean fromRedis = redis.release(pair[1]);
					if (fromMemory != fromRedis) {
						differences.add(where + "release " + fromMemory + " in memory, " + fromRedis + " in Redis");
					}
					continue;
				}
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) smallest) : 1;
				Decision inMemory = memory.acquire("k", permits, limits);
				Decision inRedis = redis.acquire("k", permits, limits);
				if (!inMemory.toString().equals(inRedis.toString())
						|| inMemory.decidedAtMicros() != inRedis.decidedAtMicros()) {
					differences.add(where + permits + " permits: memory " + inMemory + ", Redis " + inRedis);
				}
				if (inMemory.isAllowed() && inRedis.isAllowed()) {
					admitted.add(new Decision[] { inMemory, inRedis });
				}
				if (!memory.usage("k", limits).equals(redis.usage("k", limits))) {
					differences.add(where + "usage: memory " + memory.usage("k", limits) + ", Redis "
							+ redis.usage("k", limits));
				}
			}
		}
		assertThat(differences).isEmpty();
	}

	private static LettuceConnectionFactory connectionFactory(RedisServer server) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		factory.afterPropertiesSet();
		return factory;
	}

}
