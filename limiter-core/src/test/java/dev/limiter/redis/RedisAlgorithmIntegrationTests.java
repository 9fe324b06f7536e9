package dev.limiter.redis;

import dev.limiter.internal.redis.RedisKeys;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.AlgorithmContractTests;
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
	protected RateLimiter limiter(Clock clock, boolean countRejected) {
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
		RateLimiter limiter = limiter(clock, false);
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
	void aTokenBucketKeepsOneNumberThatExpiresWhenTheBucketIsFull() {
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = limiter(clock, false);
		Limit limit = Limit.of(10, Duration.ofSeconds(10)).withAlgorithm(Algorithm.TOKEN_BUCKET);
		String key = RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "tokens", limit);
		limiter.acquire("tokens", 3, List.of(limit));
		assertThat(this.redis.command("TYPE", key)).isEqualTo("string");
		assertThat((Long) this.redis.command("PTTL", key)).isPositive().isLessThanOrEqualTo(3_000);
	}

	@Test
	void eachAlgorithmHasItsOwnKeyForTheSameNumbers() {
		RateLimiter limiter = limiter(MutableClock.startingNow(), false);
		List<Limit> limits = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			limits.add(Limit.of(3, Duration.ofMinutes(1)).withAlgorithm(algorithm));
		}
		assertThat(limiter.acquire("same", 1, limits).isAllowed()).isTrue();
		assertThat(this.redis.command("KEYS", "limiter:{same}*")).asList()
			.containsExactlyInAnyOrder("limiter:{same}:w60000", "limiter:{same}:w60000:b60", "limiter:{same}:w60000:t",
					"limiter:{same}:w60000:c");
	}

	@Test
	void aCalendarKeyNamesItsCalendarAndZoneAndExpiresAtTheEndOfItsWindow() {
		MutableClock clock = MutableClock.startingNow();
		// 10:00:30 on the 24th in Berlin: the day ends at midnight, 13h59m30s later
		clock.set(java.time.ZonedDateTime.of(2026, 11, 24, 10, 0, 30, 0, java.time.ZoneId.of("Europe/Berlin"))
			.toInstant());
		RateLimiter limiter = limiter(clock, false);
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
