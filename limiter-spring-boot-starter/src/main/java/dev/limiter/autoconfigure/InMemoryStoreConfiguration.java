package dev.limiter.autoconfigure;

import java.time.Clock;
import java.util.Iterator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterProperties.Store;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * The in-memory store, when no other store was configured: on purpose with
 * {@code limiter.store=memory}, or with {@code auto} when the application has no Redis.
 * <p>
 * Counting in memory while the application is configured for Redis would let every
 * instance admit the whole limit, and nothing would fail: so {@code limiter.store=redis}
 * without a connection factory, and {@code auto} with {@code spring.data.redis.*} set or
 * a connection factory that Limiter cannot use (several and none primary), stop the
 * startup instead.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(RateLimiter.class)
final class InMemoryStoreConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(LimiterAutoConfiguration.class);

	private static final String CONNECTION_FACTORY = "org.springframework.data.redis.connection.RedisConnectionFactory";

	private static final String FIX = "Point the application at Redis (spring.data.redis.host and port) with "
			+ "spring-boot-starter-data-redis on the classpath, define one RedisConnectionFactory bean (or mark one "
			+ "@Primary), or set limiter.store=memory to count in each instance on its own.";

	@Bean
	@ConditionalOnMissingBean(RateLimiter.class)
	InMemoryRateLimiter rateLimiter(LimiterProperties properties, ListableBeanFactory beanFactory,
			ResourceLoader resourceLoader, Environment environment) {
		Store store = properties.getStore();
		String reason = (store == Store.MEMORY) ? "limiter.store is memory"
				: whyNotRedis(beanFactory, resourceLoader.getClassLoader());
		if (store == Store.REDIS) {
			throw new LimiterSetupException("limiter.store is redis, but " + reason + ".", FIX, null);
		}
		if (store == Store.AUTO && connectionFactories(beanFactory, resourceLoader.getClassLoader()) > 0) {
			throw new LimiterSetupException("Limiter would count rate limits in memory, each instance on its own, "
					+ "although " + reason + ".", FIX, null);
		}
		String redisProperty = (store == Store.AUTO) ? redisProperty(environment) : null;
		if (redisProperty != null) {
			throw new LimiterSetupException("Limiter would count rate limits in memory, each instance on its own, "
					+ "although " + redisProperty + " is set: " + reason + ".", FIX, null);
		}
		logger.info("Limiter stores rate limits in memory, for this instance only ({}): with several instances, each "
				+ "admits the whole limit", reason);
		return new InMemoryRateLimiter(Clock.systemUTC(), properties.isCountRejected(),
				properties.getMemory().getMaximumKeys());
	}

	private static String whyNotRedis(ListableBeanFactory beanFactory, ClassLoader classLoader) {
		if (!ClassUtils.isPresent(CONNECTION_FACTORY, classLoader)) {
			return "spring-data-redis is not on the classpath";
		}
		int factories = connectionFactories(beanFactory, classLoader);
		if (factories == 0) {
			return "the application has no RedisConnectionFactory bean";
		}
		if (factories == 1) {
			return "the application's RedisConnectionFactory bean was defined after Limiter's auto-configuration "
					+ "chose its store";
		}
		return "the application has " + factories + " RedisConnectionFactory beans and none is primary";
	}

	private static int connectionFactories(ListableBeanFactory beanFactory, ClassLoader classLoader) {
		if (!ClassUtils.isPresent(CONNECTION_FACTORY, classLoader)) {
			return 0;
		}
		return beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(CONNECTION_FACTORY, classLoader)).length;
	}

	/**
	 * Return a Redis connection property that the environment sets, the sign that the
	 * application means to use Redis.
	 */
	private static String redisProperty(Environment environment) {
		if (!(environment instanceof ConfigurableEnvironment configurable)) {
			return null;
		}
		Iterator<PropertySource<?>> sources = configurable.getPropertySources().iterator();
		while (sources.hasNext()) {
			if (sources.next() instanceof EnumerablePropertySource<?> enumerable) {
				for (String name : enumerable.getPropertyNames()) {
					if (name.startsWith("spring.data.redis.") || name.startsWith("SPRING_DATA_REDIS_")) {
						return name;
					}
				}
			}
		}
		return null;
	}

}
