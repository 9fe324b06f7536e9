package dev.limiter.redis;

import dev.limiter.internal.redis.RedisKeys;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.AlgorithmContractTests;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.test.MutableClock;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every algorithm on a real standalone Redis, and what each one stores there.
 */
class RedisAlgorithmIntegrationTests extends AlgorithmContractTests {

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
	protected RateLimiter store(Clock clock, boolean countRejected) {
		return RedisRateLimiter.builder(connectionFactory()).clock(clock).countRejected(countRejected).build();
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		// Each instance has its own connection factory, as separate applications would.
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			instances.add(RedisRateLimiter.builder(connectionFactory()).build());
		}
		return instances;
	}

	private LettuceConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		factory.afterPropertiesSet();
		this.factories.add(factory);
		return factory;
	}

	@Test
	void bucketsKeepOneFieldPerSliceWhateverTheThreshold() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = store(clock, false);
		Limit limit = Limit.of(1_000_000, Duration.ofHours(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS);
		String key = RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "big", limit);
		for (int minute = 0; minute < 150; minute++) {
			limiter.acquire("big", 100, List.of(limit));
			clock.advance(Duration.ofSeconds(30));
		}
		assertThat(this.redis.command("TYPE", key)).isEqualTo("hash");
		assertThat((Long) this.redis.command("HLEN", key)).isLessThanOrEqualTo(61);
		assertThat((Long) this.redis.command("PTTL", key)).isPositive()
			.isLessThanOrEqualTo(Duration.ofMinutes(61).toMillis());
	}

	@Test
	void bucketsAnswerFromTheSlicesTheyHoldInWhateverOrderTheHashKeepsThem() {
		// The oracle: a call fits when the permits of the window's slices leave room;
		// else it waits until the oldest slices have taken enough of them out of the
		// window, and the window is empty when its newest slice holding permits leaves.
		// The fields are written in random order (clocks that disagreed), with slices
		// that have left the window and one written by a clock ahead of this one.
		long seed = System.nanoTime();
		Random random = new Random(seed);
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = store(clock, false);
		for (int round = 0; round < 300; round++) {
			this.redis.flushAll();
			clock.advance(Duration.ofMillis(random.nextInt(5_000)));
			Limit limit = Limit.of(1 + random.nextInt(20), Duration.ofMillis(10 + random.nextInt(2_000)))
				.withAlgorithm(Algorithm.SLIDING_BUCKETS)
				.withSlices(1 + random.nextInt(30));
			long now = clock.millis() * 1_000;
			long slice = limit.sliceMicros();
			long current = now / slice;
			long slices = (limit.periodMicros() + slice - 1) / slice;
			Map<Long, Long> counts = new TreeMap<>();
			for (long index = current - slices - 2; index <= current + 1; index++) {
				if (random.nextInt(3) != 0) {
					counts.put(index, (long) random.nextInt(4));
				}
			}
			List<Long> order = new ArrayList<>(counts.keySet());
			Collections.shuffle(order, random);
			String key = RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "k", limit);
			for (long index : order) {
				this.redis.command("HSET", key, Long.toString(index), Long.toString(counts.get(index)));
			}
			long permits = 1 + random.nextInt((int) limit.threshold());
			long used = counts.entrySet()
				.stream()
				.filter((count) -> count.getKey() >= current - slices)
				.mapToLong(Map.Entry::getValue)
				.sum();
			long newest = counts.entrySet()
				.stream()
				.filter((count) -> count.getKey() >= current - slices && count.getKey() <= current
						&& count.getValue() > 0)
				.mapToLong(Map.Entry::getKey)
				.max()
				.orElse(Long.MIN_VALUE);
			Decision decision = limiter.acquire("k", permits, List.of(limit));
			String where = "seed " + seed + ", round " + round + ", " + limit + ", " + permits + " permits on " + counts
					+ " at slice " + current;
			if (used + permits <= limit.threshold()) {
				assertThat(decision.isAllowed()).as(where).isTrue();
				assertThat(decision.remaining()).as(where).isEqualTo(limit.threshold() - used - permits);
				continue;
			}
			long wait = (current + slices + 1) * slice - now;
			long freed = 0;
			for (long index = current - slices; index <= current; index++) {
				freed += counts.getOrDefault(index, 0L);
				if (freed >= used + permits - limit.threshold()) {
					wait = (index + slices + 1) * slice - now;
					break;
				}
			}
			long reset = (newest == Long.MIN_VALUE) ? 0 : (newest + slices + 1) * slice - now;
			assertThat(decision.isAllowed()).as(where).isFalse();
			assertThat(decision.remaining()).as(where).isEqualTo(Math.max(0, limit.threshold() - used));
			assertThat(decision.retryAfter()).as(where).isEqualTo(Duration.ofNanos(Math.max(0, wait) * 1_000));
			assertThat(decision.resetAfter()).as(where).isEqualTo(Duration.ofNanos(Math.max(0, reset) * 1_000));
		}
	}

	@Test
	void aTokenBucketKeepsOneNumberThatExpiresWhenTheBucketIsFull() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = store(clock, false);
		Limit limit = Limit.of(10, Duration.ofSeconds(10)).withAlgorithm(Algorithm.TOKEN_BUCKET);
		String key = RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "tokens", limit);
		limiter.acquire("tokens", 3, List.of(limit));
		assertThat(this.redis.command("TYPE", key)).isEqualTo("string");
		assertThat((Long) this.redis.command("PTTL", key)).isPositive().isLessThanOrEqualTo(3_000);
	}

	@Test
	void eachAlgorithmHasItsOwnKeyForTheSameNumbers() {
		RateLimiter limiter = store(MutableClock.startingNow(), false);
		List<Limit> limits = new ArrayList<>();
		for (Algorithm algorithm : AlgorithmDescriptor.stored()) {
			limits.add(Limit.of(3, Duration.ofMinutes(1)).withAlgorithm(algorithm));
		}
		assertThat(limiter.acquire("same", 1, limits).isAllowed()).isTrue();
		assertThat(this.redis.command("KEYS", "limiter:{same}*")).asList()
			.containsExactlyInAnyOrder("limiter:{same}:w60000", "limiter:{same}:w60000:b60", "limiter:{same}:w60000:t",
					"limiter:{same}:w60000:c", "limiter:{same}:w60000:f");
	}

	@Test
	void aSlotInFlightIsTheCallsMemberScoredByTheEndOfItsLeaseAndTheKeyLivesAsLongAsTheLease() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = store(clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(3)).withAlgorithm(Algorithm.IN_FLIGHT);
		Decision decision = limiter.acquire("slots", 2, List.of(limit));
		String key = "limiter:{slots}:w3000:f";
		assertThat(this.redis.command("TYPE", key)).isEqualTo("zset");
		List<?> members = (List<?>) this.redis.command("ZRANGE", key, "0", "-1", "WITHSCORES");
		assertThat(members).hasSize(4);
		assertThat(members.get(0).toString()).isEqualTo(decision.grant().member() + ".1");
		assertThat(Long.parseLong(members.get(1).toString()))
			.isEqualTo(decision.decidedAtMicros() + limit.periodMicros());
		assertThat((Long) this.redis.command("PTTL", key)).isPositive().isLessThanOrEqualTo(3_000);
		assertThat(limiter.finish(decision)).isTrue();
		assertThat(this.redis.command("EXISTS", key)).isEqualTo(0L);
	}

	@Test
	void aCalendarKeyNamesItsCalendarAndZoneAndExpiresAtTheEndOfItsWindow() {
		MutableClock clock = MutableClock.startingNow();
		// 10:00:30 on the 24th in Berlin: the day ends at midnight, 13h59m30s later
		clock.set(java.time.ZonedDateTime.of(2026, 11, 24, 10, 0, 30, 0, java.time.ZoneId.of("Europe/Berlin"))
			.toInstant());
		RateLimiter limiter = store(clock, false);
		Limit daily = Limit.of(3, Duration.ofMinutes(1))
			.withCalendar(java.time.temporal.ChronoUnit.DAYS, java.time.ZoneId.of("Europe/Berlin"));
		assertThat(limiter.acquire("calendar", 2, List.of(daily)).remaining()).isEqualTo(1);
		String key = "limiter:{calendar}:w86400000:cday@Europe/Berlin";
		assertThat(this.redis.command("KEYS", "limiter:{calendar}*")).asList().containsExactly(key);
		assertThat(this.redis.command("TYPE", key)).isEqualTo("string");
		assertThat((Long) this.redis.command("PTTL", key)).isPositive()
			.isLessThanOrEqualTo(Duration.ofHours(13).plusMinutes(59).plusSeconds(30).toMillis());
	}

}
