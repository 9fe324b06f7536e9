package dev.limiter.benchmarks.peer;

import java.time.Duration;

import com.giffing.bucket4j.spring.boot.starter.config.cache.AbstractCacheResolverTemplate;
import com.giffing.bucket4j.spring.boot.starter.config.cache.SyncCacheResolver;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AbstractProxyManager;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;

import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Bucket4j's store: its Lettuce proxy manager on the Redis of
 * {@code spring.data.redis.host} and {@code port}, the one Limiter uses.
 * <p>
 * With {@code bucket4j.cache-to-use: redis-lettuce}, bucket4j-spring-boot-starter 0.12.10
 * registers only an asynchronous cache resolver, and only when a WebFlux or gateway
 * filter is configured; its servlet filter needs a {@link SyncCacheResolver} and is not
 * created without one (the startup check then fails). This resolver is the starter's own
 * {@code LettuceCacheResolver}, blocking: the same proxy manager and the same expiration.
 */
@Configuration(proxyBeanMethods = false)
class Bucket4jRedisConfiguration {

	/**
	 * Lettuce on Boot's client resources (its event loops), as Limiter's connection.
	 */
	@Bean(destroyMethod = "shutdown")
	RedisClient bucket4jRedisClient(ClientResources clientResources, RedisProperties redis) {
		return RedisClient.create(clientResources, RedisURI.create(redis.getHost(), redis.getPort()));
	}

	@Bean
	SyncCacheResolver bucket4jCacheResolver(RedisClient bucket4jRedisClient) {
		return new LettuceSyncCacheResolver(bucket4jRedisClient);
	}

	/**
	 * The starter's Lettuce cache resolver, answering synchronously.
	 */
	static final class LettuceSyncCacheResolver extends AbstractCacheResolverTemplate<byte[]>
			implements SyncCacheResolver {

		private final RedisClient redisClient;

		LettuceSyncCacheResolver(RedisClient redisClient) {
			this.redisClient = redisClient;
		}

		@Override
		public boolean isAsync() {
			return false;
		}

		@Override
		public byte[] castStringToCacheKey(String key) {
			return key.getBytes(UTF_8);
		}

		// The starter's own call, deprecated in Bucket4j 8.10.1 but kept: the same
		// expiration as the starter's resolver.
		@Override
		@SuppressWarnings("deprecation")
		public AbstractProxyManager<byte[]> getProxyManager(String cacheName) {
			return LettuceBasedProxyManager.builderFor(this.redisClient)
				.withExpirationStrategy(
						ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
				.build();
		}

	}

}
