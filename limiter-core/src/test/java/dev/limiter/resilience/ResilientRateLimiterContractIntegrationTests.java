package dev.limiter.resilience;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.AsyncAsBlocking;
import dev.limiter.FailurePolicy;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.RedisServer;

/**
 * The contract through the decorators, stacked as the starter stacks them on a healthy
 * Redis: breaker and failure policies, then the rejection cache, then the store; on the
 * blocking and on the non-blocking path.
 */
class ResilientRateLimiterContractIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@AfterEach
	void closeFactories() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	RateLimiter stack(Clock clock, boolean countRejected) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.afterPropertiesSet();
		this.factories.add(factory);
		RedisRateLimiter.Builder store = RedisRateLimiter.builder(factory).countRejected(countRejected);
		if (clock != null) {
			store.clock(clock);
		}
		RateLimiter cached = RejectionCachingRateLimiter.wrap(store.build())
			.clock((clock != null) ? clock : Clock.systemUTC())
			.countRejected(countRejected)
			.build();
		return new ResilientRateLimiter(cached, FailurePolicy.FAIL_CLOSED, new InMemoryRateLimiter(),
				ResilientRateLimiter.loggingBreaker(3, Duration.ofMillis(500)), null);
	}

	@Nested
	class Blocking extends RateLimiterContractTests {

		@Override
		protected RateLimiter limiter(Clock clock, boolean countRejected) {
			return stack(clock, countRejected);
		}

		@Override
		protected List<RateLimiter> instances(int count) {
			List<RateLimiter> instances = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				instances.add(stack(null, false));
			}
			return instances;
		}

	}

	@Nested
	class NonBlocking extends RateLimiterContractTests {

		@Override
		protected RateLimiter limiter(Clock clock, boolean countRejected) {
			return AsyncAsBlocking.of(stack(clock, countRejected));
		}

		@Override
		protected List<RateLimiter> instances(int count) {
			List<RateLimiter> instances = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				instances.add(AsyncAsBlocking.of(stack(null, false)));
			}
			return instances;
		}

	}

}
