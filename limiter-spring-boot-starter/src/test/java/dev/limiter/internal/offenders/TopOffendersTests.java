package dev.limiter.internal.offenders;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.limiter.internal.offenders.OffenderRanking.Offender;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tally of rejections per limit and caller: exact while it holds every caller, never
 * low and never dropping a heavy hitter once full, and forgetting what is older than two
 * windows.
 */
class TopOffendersTests {

	private final AtomicLong now = new AtomicLong();

	private final TopOffenders offenders = new TopOffenders(this.now::get, Duration.ofNanos(1_000));

	@Test
	void callersAreRankedByTheirRejectionsMostFirst() {
		reject("search", "a", 30);
		reject("search", "b", 20);
		reject("search", "c", 10);
		reject("other", "d", 50);
		assertThat(this.offenders.top("search", 10)).containsExactly(new Offender("a", 30), new Offender("b", 20),
				new Offender("c", 10));
		assertThat(this.offenders.top("search", 2)).extracting(Offender::key).containsExactly("a", "b");
		assertThat(this.offenders.top("nothing", 10)).isEmpty();
	}

	@Test
	void aFullSketchKeepsTheHeavyHittersAndNeverCountsOneLow() {
		Random random = new Random(42);
		for (int i = 0; i < 20_000; i++) {
			// 3 heavy callers among 5,000 that are rejected once or twice each
			int pick = random.nextInt(10);
			String key = (pick < 3) ? "heavy-" + pick : "light-" + random.nextInt(5_000);
			this.offenders.rejected("search", key);
		}
		assertThat(this.offenders.counts("search")).hasSizeLessThanOrEqualTo(TopOffenders.CAPACITY);
		assertThat(this.offenders.top("search", 3)).extracting(Offender::key)
			.containsExactlyInAnyOrder("heavy-0", "heavy-1", "heavy-2");
		assertThat(this.offenders.top("search", 3)).allSatisfy(
				(offender) -> assertThat(offender.rejections()).isGreaterThanOrEqualTo(20_000 * 3 / 10 / 3 - 500));
	}

	@Test
	void aRankingCoversTheCurrentAndThePreviousWindowOnly() {
		reject("search", "old", 5);
		this.now.addAndGet(1_000);
		reject("search", "recent", 3);
		assertThat(this.offenders.counts("search")).containsEntry("old", 5L).containsEntry("recent", 3L);
		this.now.addAndGet(1_000);
		assertThat(this.offenders.counts("search")).doesNotContainKey("old").containsEntry("recent", 3L);
		this.now.addAndGet(5_000);
		assertThat(this.offenders.counts("search")).isEmpty();
	}

	private void reject(String limit, String key, int times) {
		for (int i = 0; i < times; i++) {
			this.offenders.rejected(limit, key);
		}
	}

}
