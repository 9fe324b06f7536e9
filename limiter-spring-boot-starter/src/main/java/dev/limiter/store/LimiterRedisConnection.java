package dev.limiter.store;

import java.time.Duration;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The limiter's connection to Redis: with Lettuce, its own factory derived from the
 * application's (same servers and credentials, the limiter's timeout, no replay after a
 * reconnect), destroyed with the context; otherwise the application's factory as it is.
 * <p>
 * Kept in a holder rather than registered as a {@link RedisConnectionFactory} bean, so
 * that the application still has exactly one connection factory to inject.
 */
public final class LimiterRedisConnection implements DisposableBean {

	private final RedisConnectionFactory connectionFactory;

	private final Duration timeout;

	private LimiterRedisConnection(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	/**
	 * Wrap the limiter's own, started Lettuce factory, which this holder destroys.
	 * @param connectionFactory the dedicated factory
	 * @param timeout the timeout it applies
	 * @return the connection
	 */
	public static LimiterRedisConnection dedicated(LettuceConnectionFactory connectionFactory, Duration timeout) {
		return new LimiterRedisConnection(connectionFactory, timeout);
	}

	/**
	 * Wrap the application's factory, which stays the application's.
	 * @param connectionFactory the application's factory
	 * @return the connection
	 */
	public static LimiterRedisConnection shared(RedisConnectionFactory connectionFactory) {
		return new LimiterRedisConnection(connectionFactory, null);
	}

	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

	/**
	 * Return whether the limiter has a factory of its own.
	 * @return {@code true} for the dedicated Lettuce factory
	 */
	public boolean isDedicated() {
		return this.timeout != null;
	}

	/**
	 * Return the longest a call waits on Redis.
	 * @return the timeout, or {@code null} when the application's factory decides
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Send {@code PING}, bounded by the timeout.
	 * @return the reply, {@code PONG}
	 * @throws org.springframework.dao.DataAccessException if Redis does not answer
	 */
	public String ping() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return connection.ping();
		}
	}

	@Override
	public void destroy() {
		if (isDedicated()) {
			((LettuceConnectionFactory) this.connectionFactory).destroy();
		}
	}

}
