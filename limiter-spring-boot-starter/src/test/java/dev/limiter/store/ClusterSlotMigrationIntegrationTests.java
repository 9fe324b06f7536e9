package dev.limiter.store;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisCluster;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slot of a hot key moves between masters while four threads call the limiter on it:
 * the limiter follows the {@code ASK} and {@code MOVED} redirects, no call fails or falls
 * back to its failure policy, and the counts stay exact by the oracle.
 */
@Tag("failover")
class ClusterSlotMigrationIntegrationTests {

	private static final Limit LIMIT = Limit.of("migration", 50, Duration.ofSeconds(1));

	private static final int MOVES = 20;

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@Test
	void movingTheHotSlotBackAndForthKeepsEveryDecisionExact() {
		FailoverLoad.application("spring.data.redis.cluster.nodes=" + String.join(",", cluster.addresses()))
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				FailoverLoad load = new FailoverLoad(limiter, LIMIT, 4);
				load.start();
				try {
					load.runFor(LIMIT.period());
					RedisServer holder = cluster.masterHoldingKeys();
					String key = ((List<?>) holder.command("KEYS", "*")).get(0).toString();
					int slot = ((Long) holder.command("CLUSTER", "KEYSLOT", key)).intValue();
					long start = System.nanoTime();
					for (int i = 0; i < MOVES; i++) {
						RedisServer to = cluster.masters().get((cluster.masters().indexOf(holder) + 1) % 3);
						cluster.migrateSlot(slot, holder, to);
						holder = to;
						// Calls run on the new owner for a moment before the next move.
						load.runFor(Duration.ofMillis(100));
					}
					load.runFor(LIMIT.period());
					load.stop();
					FailoverLoad.Figures figures = load.figures(start);
					System.out.printf("slot migration: %d moves of slot %d; %s%n", MOVES, slot,
							figures.describe(LIMIT));
					assertThat(figures.errors()).as("exceptions that reached a caller").isZero();
					assertThat(figures.degradedAdmissions()).as("calls admitted without Redis").isZero();
					assertThat(figures.overAdmission()).as("over-admission").isZero();
				}
				finally {
					load.stop();
				}
			});
	}

}
