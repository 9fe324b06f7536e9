package dev.limiter.internal.retry;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.internal.retry.RetryBudgetStore.BudgetSettings;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared script on a real Redis against the promise's oracle, outcome by outcome on
 * randomized schedules, the time given to it; and on Redis's own clock.
 */
class RedisRetryBudgetsIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void connect() {
		connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@RepeatedTest(5)
	void everyOutcomeOfARandomScheduleIsTheOracles() {
		long seed = System.nanoTime();
		Random random = new Random(seed);
		double ratio = random.nextInt(11) / 10.0;
		long minPerSecond = random.nextInt(4);
		AtomicLong now = new AtomicLong(1_700_000_000_000L + random.nextInt(1000));
		RedisRetryBudgets store = new RedisRetryBudgets(connectionFactory, "retry-oracle-" + seed + ":", now::get);
		BudgetSettings budget = new BudgetSettings("payments", ratio, minPerSecond);
		RetryBudgetOracle oracle = new RetryBudgetOracle(ratio, minPerSecond);
		for (int step = 0; step < 500; step++) {
			now.addAndGet((random.nextInt(10) == 0) ? random.nextInt(12_000) : random.nextInt(150));
			long firstAttempts = (random.nextInt(3) == 0) ? random.nextInt(20) : 0;
			boolean retry = random.nextBoolean();
			assertThat(store.apply(budget, firstAttempts, retry).paid()).as("seed %d, step %d", seed, step)
				.isEqualTo(oracle.apply(now.get(), firstAttempts, retry));
		}
	}

	@Test
	void onRedisClockTheBudgetIsOneHashThatExpires() {
		RedisRetryBudgets store = new RedisRetryBudgets(connectionFactory, "retry-clock:", null);
		BudgetSettings budget = new BudgetSettings("search", 0.5, 0);
		assertThat(store.apply(budget, 4, true).paid()).isEqualTo(RetryWindow.Outcome.BY_RATIO);
		RetryWindow.Outcome outcome = store.apply(budget, 0, true);
		assertThat(outcome.paid()).isEqualTo(RetryWindow.Outcome.BY_RATIO);
		assertThat(outcome.firstAttempts()).isEqualTo(4);
		assertThat(store.apply(budget, 0, true).allowed()).isFalse();
		assertThat(redis.command("TYPE", "retry-clock:retry:{search}")).isEqualTo("hash");
		assertThat((Long) redis.command("PTTL", "retry-clock:retry:{search}")).isBetween(1L,
				(RetryWindow.WINDOW_SECONDS + 1) * 1000L);
	}

}
