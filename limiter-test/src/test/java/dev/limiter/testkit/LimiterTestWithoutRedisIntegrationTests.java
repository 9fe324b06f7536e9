package dev.limiter.testkit;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import dev.limiter.RateLimiter;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.internal.store.RedisOverrideStore;
import dev.limiter.internal.store.RedisSubscription;
import dev.limiter.memory.InMemoryRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application configured for a Redis that is not there, tested with
 * {@code @LimiterTest}: nothing of the test's context talks to Redis (it used to read the
 * overrides from it and retry every 5 s with a warning each time).
 */
@SpringBootTest(classes = LimiterTestWithoutRedisIntegrationTests.App.class,
		properties = { "spring.main.banner-mode=off", "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1",
				"limiter.clients.api.hosts=api.example.com", "limiter.clients.api.threshold=5",
				"limiter.clients.api.period=1s" })
@LimiterTest
class LimiterTestWithoutRedisIntegrationTests {

	@Autowired
	private ApplicationContext context;

	@Test
	void nothingOfTheContextTalksToRedis() {
		assertThat(this.context.getBean(RateLimiter.class)).isInstanceOf(InMemoryRateLimiter.class);
		assertThat(this.context.getBeansOfType(RedisOverrideStore.class)).isEmpty();
		assertThat(this.context.getBeansOfType(RedisSubscription.class)).isEmpty();
		assertThat(this.context.getBeansOfType(OverrideStore.class).values())
			.noneMatch((store) -> store instanceof RedisOverrideStore);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
