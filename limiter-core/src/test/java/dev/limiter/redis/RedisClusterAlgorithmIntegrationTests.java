package dev.limiter.redis;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.AlgorithmContractTests;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.test.RedisCluster;

/**
 * Every algorithm on a real 3-master Redis Cluster: a call's keys share one slot whatever
 * algorithms its limits use.
 */
class RedisClusterAlgorithmIntegrationTests extends AlgorithmContractTests {

	private static RedisCluster cluster;

	private static final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		factories.forEach(LettuceConnectionFactory::destroy);
		cluster.close();
	}

	/**
	 * The cluster runs a fifth of the schedules unless more are asked for: the same
	 * script runs on every master, and the standalone and in-memory runs cover the rest.
	 */
	@Override
	protected int schedules() {
		return Math.max(200, Integer.getInteger(RateLimiterContractTests.SCHEDULES_PROPERTY, 0));
	}

	@Override
	protected RateLimiter store(Clock clock, boolean countRejected) {
		return RedisRateLimiter.builder(connectionFactory()).clock(clock).countRejected(countRejected).build();
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			instances.add(RedisRateLimiter.builder(connectionFactory()).build());
		}
		return instances;
	}

	private static LettuceConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(cluster.addresses()));
		factory.afterPropertiesSet();
		factories.add(factory);
		return factory;
	}

}
