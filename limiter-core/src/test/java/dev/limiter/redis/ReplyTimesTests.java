package dev.limiter.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a call waits for Redis, learned from its answers on recorded sequences: never
 * less than the timeout, twice the slowest recent answer, at most the ceiling, and back
 * to the timeout as slow answers age.
 */
class ReplyTimesTests {

	private static final long MS = 1_000_000;

	private static final long TIMEOUT = 50 * MS;

	private final ReplyTimes replies = new ReplyTimes(TIMEOUT, TIMEOUT + Duration.ofSeconds(1).toNanos());

	@Test
	void aRedisThatAnswersFastIsGivenTheTimeout() {
		long now = 1;
		for (int i = 0; i < 1000; i++) {
			this.replies.answered(MS, now += MS);
		}
		assertThat(this.replies.patienceNanos(now)).isEqualTo(TIMEOUT);
	}

	@Test
	void aBusyRedisIsGivenTwiceItsSlowestRecentAnswerUpToTheCeiling() {
		long now = 1;
		long[] answers = { 20, 150, 40, 90, 30 };
		for (long took : answers) {
			this.replies.answered(took * MS, now += 10 * MS);
		}
		assertThat(this.replies.patienceNanos(now)).isEqualTo(300 * MS);
		this.replies.answered(900 * MS, now += MS);
		assertThat(this.replies.patienceNanos(now)).isEqualTo(ReplyTimes.CEILING.toNanos());
	}

	@Test
	void aSlowAnswerIsForgottenByHalvesAndTheWaitFallsBackToTheTimeout() {
		long now = 1;
		this.replies.answered(150 * MS, now);
		long halfLife = ReplyTimes.HALF_LIFE.toNanos();
		assertThat(this.replies.patienceNanos(now + halfLife - 1)).isEqualTo(300 * MS);
		assertThat(this.replies.patienceNanos(now + halfLife)).isEqualTo(150 * MS);
		assertThat(this.replies.patienceNanos(now + 2 * halfLife)).isEqualTo(75 * MS);
		assertThat(this.replies.patienceNanos(now + 3 * halfLife)).isEqualTo(TIMEOUT);
		assertThat(this.replies.patienceNanos(now + 1000 * halfLife)).isEqualTo(TIMEOUT);
	}

	@Test
	void aTimeoutLargerThanTheCeilingStaysTheWait() {
		ReplyTimes slow = new ReplyTimes(2000 * MS, 3000 * MS);
		slow.answered(1500 * MS, 1);
		assertThat(slow.patienceNanos(1)).isEqualTo(2000 * MS);
	}

	@Test
	void anAnswerAfterACommandWasWrittenMeansRedisIsBusyNotGone() {
		long written = 100 * MS;
		assertThat(this.replies.answeredSince(written)).as("nothing answered yet").isFalse();
		this.replies.answered(MS, written - MS);
		assertThat(this.replies.answeredSince(written)).as("only before the write").isFalse();
		this.replies.answered(MS, written + 5 * MS);
		assertThat(this.replies.answeredSince(written)).isTrue();
	}

}
