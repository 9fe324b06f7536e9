package dev.limiter.autoconfigure;

import java.time.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.redis.RedisRateLimiter;

/**
 * The store configurations, imported in order: Redis when the application has a
 * {@link RedisConnectionFactory}, otherwise the in-memory engine.
 */
final class LimiterStoreConfigurations {

	private static final Logger logger = LoggerFactory.getLogger(LimiterAutoConfiguration.class);

	private LimiterStoreConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisConnectionFactory.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	static class Redis {

		@Bean
		@ConditionalOnMissingBean(RateLimiter.class)
		RedisRateLimiter rateLimiter(RedisConnectionFactory connectionFactory, LimiterProperties properties) {
			RedisRateLimiter.Builder builder = RedisRateLimiter.builder(connectionFactory)
				.countRejected(properties.isCountRejected());
			try {
				builder.keyPrefix(properties.getKeyPrefix());
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException("limiter.key-prefix", properties.getKeyPrefix(),
						"The prefix must not contain '{' or '}', which would move keys to another cluster slot.");
			}
			if (properties.getClock() == LimiterProperties.ClockSource.CLIENT) {
				builder.clock(Clock.systemUTC());
			}
			logger.info("Limiter stores rate limits in Redis ({} clock): the application has a RedisConnectionFactory",
					(properties.getClock() == LimiterProperties.ClockSource.CLIENT) ? "application" : "Redis server");
			return builder.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(RateLimiter.class)
	static class InMemory {

		@Bean
		@ConditionalOnMissingBean(RateLimiter.class)
		InMemoryRateLimiter rateLimiter(LimiterProperties properties, ResourceLoader resourceLoader) {
			boolean redisPresent = ClassUtils.isPresent(
					"org.springframework.data.redis.connection.RedisConnectionFactory",
					resourceLoader.getClassLoader());
			logger.info("Limiter stores rate limits in memory, for this instance only: {}",
					redisPresent ? "the application has no single RedisConnectionFactory bean"
							: "spring-data-redis is not on the classpath");
			return new InMemoryRateLimiter(Clock.systemUTC(), properties.isCountRejected());
		}

	}

}
