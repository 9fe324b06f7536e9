package dev.limiter.redis;

import dev.limiter.internal.redis.LimiterConnectionFactories;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.AsyncAsBlocking;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.test.RedisServer;

/**
 * The contract through the Redis engine's non-blocking path, on the limiter's own
 * connection as the starter builds it (timeouts judged on a timer, not by a waiting
 * thread).
 */
class RedisRateLimiterAsyncIntegrationTests extends RateLimiterContractTests {

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
		return AsyncAsBlocking
			.of(RedisRateLimiter.builder(dedicated()).clock(clock).countRejected(countRejected).build());
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			instances.add(AsyncAsBlocking.of(RedisRateLimiter.builder(dedicated()).build()));
		}
		return instances;
	}

	private LettuceConnectionFactory dedicated() {
		LettuceConnectionFactory application = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		application.afterPropertiesSet();
		this.factories.add(application);
		// A timeout a loaded machine meets: the contract is about decisions, not faults.
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, Duration.ofMillis(500));
		this.factories.add(dedicated);
		return dedicated;
	}

}
