package dev.limiter.testkit;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.memory.InMemoryRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimiterTestAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class,
				LimiterTestAutoConfiguration.class))
		// An application configured for Redis, at a port that refuses connections.
		.withBean(LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)))
		.withPropertyValues("spring.data.redis.port=1");

	private final Limit limit = Limit.of(2, Duration.ofSeconds(30));

	@Test
	void swapsTheStoreForMemoryAndNeverTouchesRedis() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class);
			assertThat(context).doesNotHaveBean(LimiterRedisConnection.class);
		});
	}

	@Test
	void advancingTheClockLetsCallsLeaveTheirWindow() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			TestLimiter testLimiter = context.getBean(TestLimiter.class);
			assertThat(limiter.acquire("k", this.limit).isAllowed()).isTrue();
			assertThat(limiter.acquire("k", this.limit).isAllowed()).isTrue();
			assertThat(limiter.acquire("k", this.limit).retryAfter()).isEqualTo(Duration.ofSeconds(30));
			testLimiter.advance(Duration.ofSeconds(29));
			assertThat(limiter.acquire("k", this.limit).isAllowed()).isFalse();
			testLimiter.advance(Duration.ofSeconds(1));
			assertThat(limiter.acquire("k", this.limit).isAllowed()).isTrue();
		});
	}

	@Test
	void aCallInFlightKeepsItsSlotAsTheTestsTimePassesUntilItEnds() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			TestLimiter testLimiter = context.getBean(TestLimiter.class);
			Limit one = Limit.of("exports", 1, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
			Decision running = limiter.acquire("k", one);
			testLimiter.advance(Duration.ofHours(1));
			assertThat(limiter.acquire("k", one).isAllowed()).as("still running an hour later").isFalse();
			assertThat(limiter.finish(running)).isTrue();
			assertThat(limiter.acquire("k", one).isAllowed()).isTrue();
		});
	}

	@Test
	void resetGivesEveryCallerItsFullQuota() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			limiter.acquire("k", 2, List.of(this.limit));
			assertThat(limiter.acquire("k", this.limit).isAllowed()).isFalse();
			context.getBean(TestLimiter.class).reset();
			assertThat(limiter.acquire("k", this.limit).remaining()).isEqualTo(1);
		});
	}

	@Test
	void theClockOnlyMovesForward() {
		this.contextRunner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> context.getBean(TestLimiter.class).advance(Duration.ofSeconds(-1)))
			.withMessage("duration must not be null or negative, was PT-1S"));
	}

	@Test
	void backsOffFromTheApplicationsOwnRateLimiter() {
		this.contextRunner.withBean("mine", RateLimiter.class, InMemoryRateLimiter::new)
			.run((context) -> assertThat(context).getBean(RateLimiter.class).isSameAs(context.getBean("mine")));
	}

}
