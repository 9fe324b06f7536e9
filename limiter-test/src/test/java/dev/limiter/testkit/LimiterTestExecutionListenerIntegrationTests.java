package dev.limiter.testkit;

import java.time.Duration;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two test methods on one cached context: the second starts with a full quota although
 * the first used it up.
 */
@SpringBootTest(classes = LimiterTestExecutionListenerIntegrationTests.App.class,
		properties = "spring.main.banner-mode=off")
@LimiterTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LimiterTestExecutionListenerIntegrationTests {

	private static final Limit LIMIT = Limit.of(1, Duration.ofHours(1));

	@Autowired
	private RateLimiter rateLimiter;

	@Test
	@Order(1)
	void theFirstTestUsesUpTheQuota() {
		assertThat(this.rateLimiter).isInstanceOf(InMemoryRateLimiter.class);
		assertThat(this.rateLimiter.acquire("alice", LIMIT).isAllowed()).isTrue();
		assertThat(this.rateLimiter.acquire("alice", LIMIT).isAllowed()).isFalse();
	}

	@Test
	@Order(2)
	void theNextTestStartsWithAFullQuota() {
		assertThat(this.rateLimiter.acquire("alice", LIMIT).isAllowed()).isTrue();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
