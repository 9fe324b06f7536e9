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
import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.internal.WatchedDecision;
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
			List<Limit> limits = randomLimits(random, "l");
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

	/**
	 * A call with enforced limits and limits that only watch it under another key is one
	 * script call in Redis, decided as the in-memory engine decides it with two acquires:
	 * the watching limits asked only once the enforced ones admit the call.
	 */
	@Test
	void oneScriptCallDecidesEnforcedAndWatchingLimitsAsTwoAcquiresDo() {
		int schedules = Math.max(200, Integer.getInteger(RateLimiterContractTests.SCHEDULES_PROPERTY, 0) / 2);
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		List<String> differences = new ArrayList<>();
		long paired = 0;
		long scriptCalls = 0;
		for (int schedule = 0; schedule < schedules && differences.isEmpty(); schedule++) {
			this.redis.flushAll();
			MutableClock clock = MutableClock.startingNow();
			boolean countRejected = random.nextInt(4) == 0;
			AbstractRateLimiter memory = Engines.of(new InMemoryRateLimiter(clock, countRejected));
			AbstractRateLimiter redis = Engines
				.of(RedisRateLimiter.builder(this.factory).clock(clock).countRejected(countRejected).build());
			memory.leases().renewOnlyOnDemand();
			redis.leases().renewOnlyOnDemand();
			List<Limit> enforced = randomLimits(random, "e");
			List<Limit> watched = randomLimits(random, "w");
			long smallest = Math.min(enforced.stream().mapToLong(Limit::threshold).min().getAsLong(),
					watched.stream().mapToLong(Limit::threshold).min().getAsLong());
			List<Decision[]> admitted = new ArrayList<>();
			// The first acquire of a schedule loads the script (flushed with the keys):
			// NOSCRIPT, then EVAL.
			boolean loaded = false;
			long realTime = System.nanoTime();
			for (int call = 0; call < 30 && differences.isEmpty(); call++) {
				long elapsed = System.nanoTime() - realTime;
				realTime += elapsed;
				clock.advance(Duration.ofNanos(Math.max(random.nextInt(400_000) * 1_000L, elapsed + 1_000_000)));
				String where = "seed " + seed + ", schedule " + schedule + " " + enforced + " watched by " + watched
						+ (countRejected ? " counting rejections" : "") + ", call " + call + ": ";
				if (!admitted.isEmpty() && random.nextInt(8) == 0) {
					Decision[] pair = admitted.remove(random.nextInt(admitted.size()));
					if (memory.release(pair[0]) != redis.release(pair[1])) {
						differences.add(where + "release differs for " + pair[0]);
					}
					continue;
				}
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) smallest) : 1;
				CheckedCall enforcedCall = CheckedCall.of("k", permits, enforced);
				CheckedCall watchedCall = CheckedCall.of("s:k", permits, watched);
				long before = this.redis.scriptCalls();
				WatchedDecision inMemory = memory.acquire(enforcedCall, watchedCall);
				WatchedDecision inRedis = random.nextBoolean() ? redis.acquire(enforcedCall, watchedCall)
						: redis.acquireAsync(enforcedCall, watchedCall).join();
				if (loaded) {
					scriptCalls += this.redis.scriptCalls() - before;
					paired++;
				}
				loaded = true;
				if (!String.valueOf(inMemory).equals(String.valueOf(inRedis))) {
					differences.add(where + permits + " permits: memory " + inMemory + ", Redis " + inRedis);
				}
				for (Decision[] pair : new Decision[][] { { inMemory.enforced(), inRedis.enforced() },
						{ inMemory.watched(), inRedis.watched() } }) {
					if (pair[0] != null && pair[1] != null && pair[0].isAllowed() && pair[1].isAllowed()) {
						admitted.add(pair);
					}
				}
				if (!memory.usage("k", enforced).equals(redis.usage("k", enforced))
						|| !memory.usage("s:k", watched).equals(redis.usage("s:k", watched))) {
					differences
						.add(where + "usage: memory " + memory.usage("k", enforced) + memory.usage("s:k", watched)
								+ ", Redis " + redis.usage("k", enforced) + redis.usage("s:k", watched));
				}
			}
		}
		assertThat(differences).isEmpty();
		// Counted around the acquires alone: the usage reads are script calls of their
		// own.
		assertThat(scriptCalls).isEqualTo(paired);
	}

	private static List<Limit> randomLimits(Random random, String prefix) {
		Algorithm[] algorithms = AlgorithmDescriptor.stored().toArray(new Algorithm[0]);
		List<Limit> limits = new ArrayList<>();
		for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
			Limit limit = Limit.of(prefix + i, 1 + random.nextInt(20), Duration.ofMillis(1 + random.nextInt(2_000)))
				.withAlgorithm(algorithms[random.nextInt(algorithms.length)])
				.withSlices(1 + random.nextInt(30));
			if (limit.algorithm() != Algorithm.IN_FLIGHT && random.nextInt(3) == 0) {
				limit = limit.withPenalty(Duration.ofMillis(1 + random.nextInt(2_000)));
			}
			if (limits.stream().noneMatch(limit::sameWindowAs)) {
				limits.add(limit);
			}
		}
		return limits;
	}

	private static LettuceConnectionFactory connectionFactory(RedisServer server) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		factory.afterPropertiesSet();
		return factory;
	}

}
