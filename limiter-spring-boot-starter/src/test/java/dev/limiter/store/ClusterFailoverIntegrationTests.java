package dev.limiter.store;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.test.RedisCluster;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on a Redis Cluster of 3 masters and 3 replicas, configured through Spring
 * Boot's {@code spring.data.redis.cluster.nodes}: the master that holds the limited key
 * is killed while four threads call the limiter, the cluster promotes its replica, and
 * the limiter's own connection must find the new master (a refresh of the topology).
 * Measured and printed as in {@link SentinelFailoverIntegrationTests}.
 */
@Tag("failover")
class ClusterFailoverIntegrationTests {

	private static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

	private static final Limit LIMIT = Limit.of("failover", 50, Duration.ofSeconds(1));

	private static final int THREADS = 4;

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.startWithReplicas(3, NODE_TIMEOUT);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@Test
	void killedMasterFailsOverWithoutErrorsAndLimitingResumesExactly() {
		FailoverLoad.application("spring.data.redis.cluster.nodes=" + String.join(",", cluster.addresses()))
			.run((context) -> {
				assertThat(context.getBean(LettuceConnectionFactory.class).isClusterAware()).isTrue();
				assertThat(context.getBean(LimiterRedisConnection.class).isDedicated()).isTrue();
				RateLimiter limiter = context.getBean(RateLimiter.class);
				FailoverLoad load = new FailoverLoad(limiter, LIMIT, THREADS);
				load.start();
				try {
					load.runFor(LIMIT.period().multipliedBy(2));
					RedisServer holder = cluster.masterHoldingKeys();
					long killedAt = System.nanoTime();
					holder.kill();
					cluster.awaitFailover(holder);
					long promotedAt = System.nanoTime();
					load.awaitExactFor(killedAt + NODE_TIMEOUT.toNanos(), Duration.ofSeconds(2),
							Duration.ofSeconds(60));
					load.stop();
					FailoverLoad.Figures figures = load.figures(killedAt);
					System.out.printf("cluster failover: replica promoted %d ms after the kill; %s%n",
							TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt), figures.describe(LIMIT));
					figures.assertCalm(LIMIT);
				}
				finally {
					load.stop();
				}
			});
	}

}
