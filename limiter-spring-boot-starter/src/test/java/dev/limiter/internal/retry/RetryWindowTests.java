package dev.limiter.internal.retry;

import java.util.Random;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory window, each instance's own budget while Redis cannot answer, against the
 * promise's oracle on randomized schedules (the shared script's are in
 * {@link RedisRetryBudgetsIntegrationTests}).
 */
class RetryWindowTests {

	@RepeatedTest(20)
	void everyOutcomeOfARandomScheduleIsTheOracles() {
		long seed = System.nanoTime();
		Random random = new Random(seed);
		double ratio = random.nextInt(11) / 10.0;
		long minPerSecond = random.nextInt(4);
		RetryWindow window = new RetryWindow(ratio, minPerSecond);
		RetryBudgetOracle oracle = new RetryBudgetOracle(ratio, minPerSecond);
		long now = 1_700_000_000_000L + random.nextInt(1000);
		for (int step = 0; step < 2_000; step++) {
			now += (random.nextInt(10) == 0) ? random.nextInt(12_000) : random.nextInt(150);
			long firstAttempts = (random.nextInt(3) == 0) ? random.nextInt(20) : 0;
			boolean retry = random.nextBoolean();
			assertThat(window.apply(now, firstAttempts, retry).paid()).as("seed %d, step %d", seed, step)
				.isEqualTo(oracle.apply(now, firstAttempts, retry));
		}
		// What the budget promises over the whole schedule: the retries the ratio paid
		// for stay within the ratio of every first attempt, and the allowance within
		// min-per-second each second.
		assertThat(oracle.retries(1)).as("seed %d", seed)
			.isLessThanOrEqualTo((long) Math.floor(ratio * oracle.firstAttempts()));
		assertThat(oracle.retries(2)).as("seed %d", seed).isLessThanOrEqualTo(minPerSecond * oracle.seconds());
	}

	@Test
	void aFifthOfTheFirstAttemptsPaysForRetriesThenTheSecondsAllowance() {
		RetryWindow window = new RetryWindow(0.2, 2);
		long now = 1_700_000_000_000L;
		assertThat(window.apply(now, 10, false).paid()).isZero();
		assertThat(window.apply(now, 0, true).paid()).isEqualTo(RetryWindow.Outcome.BY_RATIO);
		assertThat(window.apply(now, 0, true).paid()).isEqualTo(RetryWindow.Outcome.BY_RATIO);
		assertThat(window.apply(now, 0, true).paid()).isEqualTo(RetryWindow.Outcome.BY_MINIMUM);
		assertThat(window.apply(now, 0, true).paid()).isEqualTo(RetryWindow.Outcome.BY_MINIMUM);
		RetryWindow.Outcome denied = window.apply(now, 0, true);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.balance(0.2, 2)).isZero();
		// the next second's allowance, and first attempts ten seconds old pay no more
		assertThat(window.apply(now + 1_000, 0, true).paid()).isEqualTo(RetryWindow.Outcome.BY_MINIMUM);
		assertThat(window.apply(now + 10_000, 5, false).balance(0.2, 2)).isEqualTo(1 + 2);
	}

}
