package dev.limiter.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.aop.MethodRateLimitKeyResolver;
import dev.limiter.aop.RateLimitAspect;
import dev.limiter.aop.RateLimitKeyResolver;
import dev.limiter.aop.RateLimitOperationSource;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.web.HeaderStyle;
import dev.limiter.web.RateLimitExceptionHandler;
import dev.limiter.web.RateLimitHeaders;
import dev.limiter.web.RateLimitResponseHeaders;
import dev.limiter.web.WebRateLimitKeyResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LimiterAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimiterAutoConfigurationTests {

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
			assertThat(context).hasSingleBean(RateLimitOperationSource.class);
			assertThat(context).getBean(RateLimitKeyResolver.class).isInstanceOf(MethodRateLimitKeyResolver.class);
			assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
		});
		assertThat(output).containsOnlyOnce("Limiter stores rate limits in memory")
			.contains("the application has no single RedisConnectionFactory bean");
	}

	@Test
	void withRedisConnectionFactoryUsesRedis(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(RedisConfiguration.class).run((context) -> {
			assertThat(context).getBean(RateLimiter.class).isInstanceOf(RedisRateLimiter.class);
		});
		assertThat(output).containsOnlyOnce("Limiter stores rate limits in Redis")
			.contains("the application has a RedisConnectionFactory");
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
			});
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
			assertThat(context).getBean(RateLimitKeyResolver.class).isInstanceOf(WebRateLimitKeyResolver.class);
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
	static class UserBeansConfiguration {

		@Bean
		RateLimiter myRateLimiter() {
			return new InMemoryRateLimiter();
		}

		@Bean
		RateLimitKeyResolver myKeyResolver() {
			return (Method method, Class<?> targetClass, Object[] arguments) -> "everyone";
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
