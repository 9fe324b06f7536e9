package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.internal.actuate.HealthApi;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.call.RateLimitAspect;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.internal.web.servlet.RateLimitExceptionHandler;
import dev.limiter.internal.web.servlet.RateLimitResponseHeaders;
import dev.limiter.internal.web.servlet.ServletRateLimitKeyResolver;
import dev.limiter.key.RateLimitKeyResolver;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;
import dev.limiter.test.RedisServer;
import dev.limiter.web.HeaderStyle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LimiterAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimiterAutoConfigurationIntegrationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	private final WebApplicationContextRunner webContextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void withoutRedisConnectionFactoryUsesMemory(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class);
			assertThat(context).hasSingleBean(RateLimitAspect.class);
			assertThat(context).hasSingleBean(RateLimitAdvisor.class);
			assertThat(context).hasSingleBean(RateLimitOperationSource.class);
			assertThat(context).getBean(RateLimitKeyResolver.class).isInstanceOf(MethodRateLimitKeyResolver.class);
			assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
		});
		assertThat(output).containsOnlyOnce("Limiter stores rate limits in memory")
			.contains("the application has no RedisConnectionFactory bean");
	}

	@Test
	void withRedisConnectionFactoryUsesRedis(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class).run((context) -> {
			assertThat(context).getBean(RateLimiter.class).isInstanceOf(ResilientRateLimiter.class);
			assertThat(context).hasSingleBean(RedisConnectionFactory.class);
			LimiterRedisConnection connection = context.getBean(LimiterRedisConnection.class);
			assertThat(connection.isDedicated()).isTrue();
			assertThat(connection.getTimeout()).isEqualTo(Duration.ofMillis(50));
			assertThat(connection.getConnectionFactory()).isNotSameAs(context.getBean(RedisConnectionFactory.class));
		});
		assertThat(output).containsOnlyOnce("Limiter stores rate limits in Redis at localhost:1")
			.contains("the application has a RedisConnectionFactory")
			.contains("when Redis does not answer within 50 ms, limits are counted in memory on this instance "
					+ "(limiter.failure.policy=local)")
			// Port 1 refuses connections: absent, not slow, and the application starts
			// all the same, saying in plain words what happens meanwhile.
			.contains("Limiter cannot reach Redis at startup, the connection was refused")
			.contains("limits are counted in memory on this instance until Redis answers at localhost:1")
			.doesNotContain("no answer from Redis");
	}

	@Test
	void failurePropertiesConfigureTheResilientStack() {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withPropertyValues("limiter.timeout=20ms", "limiter.failure.policy=fail-closed",
					"limiter.breaker.failure-threshold=1", "limiter.breaker.open-duration=1h")
			.run((context) -> {
				assertThat(context.getBean(LimiterRedisConnection.class).getTimeout()).isEqualTo(Duration.ofMillis(20));
				ResilientRateLimiter limiter = context.getBean(ResilientRateLimiter.class);
				Decision decision = limiter.acquire("k", Limit.of(5, Duration.ofMinutes(1)));
				assertThat(decision.isDegraded()).isTrue();
				assertThat(decision.isAllowed()).as("fail-closed").isFalse();
				// One failure opens the breaker, which then stays open for the hour.
				assertThat(limiter.breakerState()).isEqualTo(ResilientRateLimiter.BreakerState.OPEN);
				assertThat(limiter.breakerRemainingOpen()).isGreaterThan(Duration.ofMinutes(59));
				assertThat(context.getBean(RateLimitAspect.class)).isNotNull();
			});
	}

	@Test
	void perLimitFailurePolicyOverridesTheDefault() {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withPropertyValues("limiter.failure.policy=fail-closed", "limiter.breaker.open-duration=1h")
			.run((context) -> {
				ResilientRateLimiter limiter = context.getBean(ResilientRateLimiter.class);
				Limit local = Limit.of(5, Duration.ofMinutes(1))
					.withFailurePolicy(FailurePolicy.LOCAL)
					.withLocalThreshold(1);
				assertThat(limiter.acquire("k", local).isAllowed()).isTrue();
				assertThat(limiter.acquire("k", local).isAllowed()).as("local threshold of 1").isFalse();
				Limit open = Limit.of(5, Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_OPEN);
				assertThat(limiter.acquire("k", open).isAllowed()).isTrue();
			});
	}

	@Test
	void aRedisThatDoesNotAnswerAtStartupIsWaitedForAndReportedAsSilentNotAbsent(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start()) {
			redis.pause();
			try {
				this.contextRunner
					.withBean(LettuceConnectionFactory.class,
							() -> new LettuceConnectionFactory(
									new RedisStandaloneConfiguration(redis.host(), redis.port())))
					.run((context) -> {
						assertThat(context).hasNotFailed();
						// one line, true when written: not "stores rate limits in Redis"
						// while it has not answered
						assertThat(output).contains("Limiter got no answer from Redis within 5 s at startup")
							.contains("Limiter stores rate limits in Redis at " + redis.host() + ":" + redis.port()
									+ " once it answers (not yet: see above)")
							.doesNotContain("the connection was refused");
						redis.resume();
						// and a second when it answers after all
						await().atMost(Duration.ofSeconds(10))
							.untilAsserted(() -> assertThat(output)
								.contains("Limiter reached Redis at " + redis.host() + ":" + redis.port()));
					});
			}
			finally {
				redis.resume();
			}
		}
	}

	@Test
	void theRejectionCacheRejectsABlockedCallerWithoutAskingRedis() {
		RedisServer redis = RedisServer.shared();
		redis.flushAll();
		this.contextRunner
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				Limit limit = Limit.of(1, Duration.ofHours(1));
				assertThat(limiter.acquire("cached", limit).isAllowed()).isTrue();
				assertThat(limiter.acquire("cached", limit).isAllowed()).isFalse();
				redis.flushAll();
				// Redis forgot the call, the cache still knows the caller is blocked.
				Decision cached = limiter.acquire("cached", limit);
				assertThat(cached.isAllowed()).isFalse();
				assertThat(cached.isDegraded()).isFalse();
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "limiter.rejection-cache.enabled=false", "limiter.local-cache.enabled=false" })
	void theRejectionCacheCanBeDisabled(String setting) {
		RedisServer redis = RedisServer.shared();
		redis.flushAll();
		this.contextRunner
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
			.withPropertyValues(setting)
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				Limit limit = Limit.of(1, Duration.ofHours(1));
				assertThat(limiter.acquire("uncached", limit).isAllowed()).isTrue();
				assertThat(limiter.acquire("uncached", limit).isAllowed()).isFalse();
				redis.flushAll();
				assertThat(limiter.acquire("uncached", limit).isAllowed()).isTrue();
			});
	}

	@Test
	void dedicatedConnectionFactoryIsDestroyedWithTheContext() {
		LettuceConnectionFactory[] dedicated = new LettuceConnectionFactory[1];
		this.contextRunner.withUserConfiguration(RedisConfiguration.class).run((context) -> {
			dedicated[0] = (LettuceConnectionFactory) context.getBean(LimiterRedisConnection.class)
				.getConnectionFactory();
			assertThat(dedicated[0].isRunning()).isTrue();
		});
		assertThat(dedicated[0].isRunning()).isFalse();
	}

	@Test
	void otherConnectionFactoryIsUsedAsItIs(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(OtherRedisConfiguration.class).run((context) -> {
			LimiterRedisConnection connection = context.getBean(LimiterRedisConnection.class);
			assertThat(connection.isDedicated()).isFalse();
			assertThat(connection.getConnectionFactory()).isSameAs(context.getBean(RedisConnectionFactory.class));
			assertThat(context).getBean(RateLimiter.class).isInstanceOf(ResilientRateLimiter.class);
		});
		assertThat(output).contains("Limiter uses the application's OtherConnectionFactory as it is: limiter.timeout "
				+ "(50 ms) does not apply, a call waits on Redis as long as that factory's own timeout");
	}

	@Test
	void invalidTimeoutFailsWithThePropertyName() {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withPropertyValues("limiter.timeout=0ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.timeout")
				.hasStackTraceContaining("The timeout must be positive"));
	}

	@Test
	void invalidBreakerThresholdFailsWithThePropertyName() {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withPropertyValues("limiter.breaker.failure-threshold=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.breaker.failure-threshold"));
	}

	@Test
	void unsupportedFailureStatusFailsWithThePropertyName() {
		this.webContextRunner.withPropertyValues("limiter.failure.status=500")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.failure.status")
				.hasStackTraceContaining("must be 503 (Service Unavailable) or 429 (Too Many Requests)"));
	}

	@Test
	void unknownFailurePolicyFailsBindingWithThePropertyName() {
		this.contextRunner.withPropertyValues("limiter.failure.policy=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.failure.policy"));
	}

	@Test
	void withoutSpringDataRedisUsesMemory(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class));
		assertThat(output).contains("spring-data-redis is not on the classpath");
	}

	@Test
	void backsOffWithoutAspectJ() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.aspectj")).run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitAspect.class);
			assertThat(context).doesNotHaveBean(RateLimitOperationSource.class);
			assertThat(context).hasSingleBean(RateLimiter.class);
		});
	}

	@Test
	void backsOffWhenUserDefinesBeans() {
		this.contextRunner.withUserConfiguration(UserBeansConfiguration.class, RedisConfiguration.class)
			.run((context) -> {
				assertThat(context).getBean(RateLimiter.class).isSameAs(context.getBean("myRateLimiter"));
				assertThat(context).getBean(RateLimitKeyResolver.class).isSameAs(context.getBean("myKeyResolver"));
				// No connection of the limiter's own for a limiter the application
				// brings.
				assertThat(context).doesNotHaveBean(LimiterRedisConnection.class);
			});
	}

	@Test
	void metricsWithAMeterRegistry() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withConfiguration(AutoConfigurations.of(LimiterMetricsAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(LimiterMetrics.class);
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				// The policies' counters up front; a method's with its first decision.
				assertThat(registry.find(LimiterMetrics.DEGRADED).counters()).hasSize(6);
				assertThat(registry.find(LimiterMetrics.DECISIONS).counters()).isEmpty();
			});
	}

	@Test
	void metricsBackOffWithoutAMeterRegistry() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LimiterMetrics.class));
		this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LimiterMetrics.class));
	}

	@Test
	void healthIndicatorReportsTheMemoryStore() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterHealthAutoConfiguration.class))
			.run((context) -> {
				Object indicator = context.getBean("limiterHealthIndicator");
				assertThat(context.getBeansOfType(HealthApi.indicatorType())).containsKey("limiterHealthIndicator");
				assertThat(HealthApi.status(indicator)).isEqualTo("UP");
				assertThat(HealthApi.details(indicator)).containsEntry("store", "memory");
			});
	}

	@Test
	void healthIndicatorBacksOff() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterHealthAutoConfiguration.class))
			.withPropertyValues("management.health.limiter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("limiterHealthIndicator"));
		this.contextRunner.withConfiguration(AutoConfigurations.of(LimiterHealthAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.health.contributor",
					"org.springframework.boot.actuate.health"))
			.run((context) -> assertThat(context).doesNotHaveBean("limiterHealthIndicator"));
	}

	@Test
	void disabledRegistersNothing() {
		this.webContextRunner.withPropertyValues("limiter.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LimiterProperties.class);
			assertThat(context).doesNotHaveBean(RateLimiter.class);
			assertThat(context).doesNotHaveBean(RateLimitAspect.class);
			assertThat(context).doesNotHaveBean(RateLimitKeyResolver.class);
			assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
		});
	}

	@Test
	void propertiesChangeBeans() {
		this.webContextRunner.withPropertyValues("limiter.aspect-order=5", "limiter.web.headers=ietf")
			.run((context) -> {
				assertThat(context.getBean(RateLimitAspect.class).getOrder()).isEqualTo(5);
				assertThat(context.getBean(RateLimitHeaders.class).getStyle()).isEqualTo(HeaderStyle.IETF);
			});
	}

	@Test
	void aspectOrderDefaultsBeforeTransactions() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RateLimitAspect.class).getOrder())
			.isEqualTo(LimiterProperties.DEFAULT_ASPECT_ORDER));
	}

	@Test
	void countRejectedAppliesToTheMemoryStore() {
		this.contextRunner.withPropertyValues("limiter.count-rejected=true").run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			Limit limit = Limit.of(1, java.time.Duration.ofHours(1));
			assertThat(limiter.acquire("k", limit).isAllowed()).isTrue();
			Decision rejected = limiter.acquire("k", limit);
			assertThat(rejected.isAllowed()).isFalse();
			// A counted rejection is recorded, so the caller must wait a full period.
			assertThat(rejected.retryAfter()).isEqualTo(limit.period());
		});
	}

	@Test
	void webApplicationGetsWebBeans() {
		this.webContextRunner.run((context) -> {
			assertThat(context).getBean(RateLimitKeyResolver.class).isInstanceOf(ServletRateLimitKeyResolver.class);
			assertThat(context).hasSingleBean(RateLimitExceptionHandler.class);
			assertThat(context).hasSingleBean(RateLimitResponseHeaders.class);
			assertThat(context.getBean(RateLimitHeaders.class).getStyle()).isEqualTo(HeaderStyle.BOTH);
		});
	}

	@Test
	void exceptionHandlerBacksOffWhenApplicationHandlesTheException() {
		this.webContextRunner.withUserConfiguration(UserAdviceConfiguration.class).run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
			assertThat(context).hasSingleBean(RateLimitResponseHeaders.class);
		});
	}

	@Test
	void exceptionHandlerStaysWithCatchAllAdvice() {
		this.webContextRunner.withUserConfiguration(CatchAllAdviceConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class));
	}

	@Test
	void keyPrefixWithBracesFailsWithThePropertyName() {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class)
			.withPropertyValues("limiter.key-prefix=app{1}:")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("limiter.key-prefix"));
	}

	@Test
	void malformedPeriodFailsBindingWithThePropertyName() {
		this.contextRunner.withPropertyValues("limiter.limits.search.period=soon")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.limits.search.period"));
	}

	@Test
	void outOfRangeThresholdFailsWithThePropertyName() {
		this.contextRunner.withPropertyValues("limiter.limits.search.threshold=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.limits.search.threshold")
				.hasStackTraceContaining("threshold must be between 1 and 2147483647, was 0"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RedisConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			// Never connected by these tests: only its presence matters.
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("localhost", 1));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherRedisConfiguration {

		@Bean
		OtherConnectionFactory redisConnectionFactory() {
			return new OtherConnectionFactory(
					new LettuceConnectionFactory(new RedisStandaloneConfiguration("localhost", 1)));
		}

	}

	/**
	 * A connection factory that is not Lettuce's, such as Jedis's.
	 */
	static class OtherConnectionFactory implements RedisConnectionFactory, InitializingBean, DisposableBean {

		private final LettuceConnectionFactory delegate;

		OtherConnectionFactory(LettuceConnectionFactory delegate) {
			this.delegate = delegate;
		}

		@Override
		public void afterPropertiesSet() {
			this.delegate.afterPropertiesSet();
		}

		@Override
		public void destroy() {
			this.delegate.destroy();
		}

		@Override
		public boolean getConvertPipelineAndTxResults() {
			return this.delegate.getConvertPipelineAndTxResults();
		}

		@Override
		public RedisConnection getConnection() {
			return this.delegate.getConnection();
		}

		@Override
		public RedisClusterConnection getClusterConnection() {
			return this.delegate.getClusterConnection();
		}

		@Override
		public RedisSentinelConnection getSentinelConnection() {
			return this.delegate.getSentinelConnection();
		}

		@Override
		public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
			return this.delegate.translateExceptionIfPossible(ex);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeansConfiguration {

		@Bean
		RateLimiter myRateLimiter() {
			return new InMemoryRateLimiter();
		}

		@Bean
		RateLimitKeyResolver myKeyResolver() {
			return (invocation) -> "everyone";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserAdviceConfiguration {

		@Bean
		UserAdvice userAdvice() {
			return new UserAdvice();
		}

	}

	@RestControllerAdvice
	static class UserAdvice {

		@ExceptionHandler
		ResponseEntity<String> tooMany(RateLimitExceededException ex) {
			return ResponseEntity.status(503).body("slow down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CatchAllAdviceConfiguration {

		@Bean
		CatchAllAdvice catchAllAdvice() {
			return new CatchAllAdvice();
		}

	}

	@RestControllerAdvice
	static class CatchAllAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> failure(Exception ex) {
			return ResponseEntity.status(500).body(List.of(ex.getMessage()).toString());
		}

	}

}
