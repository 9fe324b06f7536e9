package dev.limiter.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.redis.LimiterConnectionFactories;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection whose reconnecting stopped (Lettuce 6.6 was seen to stop after a restart
 * of Redis; here its reconnecting is off) is replaced once it has stayed disconnected for
 * one reconnect delay and one bounded attempt: the limiter answers from Redis again
 * instead of staying on its failure policy for good.
 */
class StuckConnectionIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private RedisServer redis;

	private LettuceConnectionFactory factory;

	@AfterEach
	void close() {
		if (this.factory != null) {
			this.factory.destroy();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void aConnectionThatNeverReconnectsIsReplacedOnceRedisIsBack() {
		this.redis = RedisServer.start();
		ClientOptions neverReconnects = ClientOptions.builder()
			.autoReconnect(false)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.build();
		this.factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()),
				LettuceClientConfiguration.builder().clientOptions(neverReconnects).commandTimeout(TIMEOUT).build());
		this.factory.afterPropertiesSet();
		RateLimiter limiter = RedisRateLimiter.builder(this.factory).build();
		Limit limit = Limit.of(100, Duration.ofMinutes(1));
		assertThat(limiter.acquire("k", limit).isAllowed()).isTrue();
		this.redis.restart();
		long restarted = System.nanoTime();
		Decision decision = null;
		while (decision == null && System.nanoTime() - restarted < TimeUnit.SECONDS.toNanos(15)) {
			try {
				decision = limiter.acquire("k", limit);
			}
			catch (RuntimeException ex) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
			}
		}
		Duration recovered = Duration.ofNanos(System.nanoTime() - restarted);
		assertThat(decision).as("answered from Redis again").isNotNull();
		assertThat(decision.isAllowed()).isTrue();
		assertThat(decision.remaining()).as("the restarted Redis is empty").isEqualTo(99);
		// one reconnect delay and one attempt (timeout and grace), then a new connection
		Duration bound = LimiterConnectionFactories.MAX_RECONNECT_DELAY.plus(TIMEOUT)
			.plus(LimiterConnectionFactories.READ_GRACE)
			.plusSeconds(2);
		assertThat(recovered).isLessThan(bound);
	}

}
