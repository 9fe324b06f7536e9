package dev.limiter.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.limiter.RateLimiter;
import dev.limiter.internal.actuate.LimiterHealthCheck;
import dev.limiter.internal.actuate.LimiterHealthIndicatorFactoryBean;
import dev.limiter.internal.store.LimiterRedisConnection;

/**
 * Auto-configuration of the {@code limiter} health indicator, which reports the limiter's
 * store, on Spring Boot 4 ({@code spring-boot-health}) and 3.5
 * ({@code spring-boot-actuator}) alike.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnLimiterEnabled
@Conditional(LimiterHealthAutoConfiguration.OnHealthApiCondition.class)
@ConditionalOnBean(RateLimiter.class)
public final class LimiterHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LimiterHealthCheck limiterHealthCheck(RateLimiter rateLimiter, ObjectProvider<LimiterRedisConnection> connection) {
		return new LimiterHealthCheck(rateLimiter, connection.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean(name = "limiterHealthIndicator")
	@ConditionalOnProperty(prefix = "management.health.limiter", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	static LimiterHealthIndicatorFactoryBean limiterHealthIndicator(ObjectProvider<LimiterHealthCheck> check) {
		// Static and lazy: the registry asks the factory for its type early, before the
		// limiter exists.
		return new LimiterHealthIndicatorFactoryBean(check::getObject);
	}

	/**
	 * Matches when Spring Boot 4's or 3.5's health API is on the classpath.
	 */
	static class OnHealthApiCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return LimiterHealthIndicatorFactoryBean.isHealthApiPresent(context.getClassLoader())
					? ConditionOutcome.match("a HealthIndicator API is present")
					: ConditionOutcome.noMatch("neither Spring Boot 4's nor 3.5's HealthIndicator is present");
		}

	}

}
