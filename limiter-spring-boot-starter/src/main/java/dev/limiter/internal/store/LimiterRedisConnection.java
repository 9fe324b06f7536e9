package dev.limiter.internal.store;

import java.time.Duration;
import java.util.Collection;
import java.util.StringJoiner;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
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

	private static final Logger logger = LoggerFactory.getLogger(LimiterRedisConnection.class);

	private final RedisConnectionFactory connectionFactory;

	private final Duration timeout;

	private final List<AutoCloseable> clients = new CopyOnWriteArrayList<>();

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
	 * Return the factory whose wait on Redis is the limiter's timeout, for what an
	 * operator waits on (the endpoint's reads and writes): the limiter's connection's
	 * when there is one (an application's own {@code RateLimiter} has none), otherwise
	 * the application's.
	 * @param connection the limiter's connection, or {@code null}
	 * @param application the application's factory
	 * @return the factory to use
	 */
	public static RedisConnectionFactory bounded(LimiterRedisConnection connection,
			RedisConnectionFactory application) {
		return (connection != null) ? connection.getConnectionFactory() : application;
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
	 * Return where Redis is expected, for messages: {@code localhost:6379}, the nodes of
	 * a cluster, or the master's name and its Sentinels.
	 * @return the address, or a description when the factory does not tell
	 */
	public String getAddress() {
		if (this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
			if (lettuce.getClusterConfiguration() != null) {
				return "the cluster " + nodes(lettuce.getClusterConfiguration().getClusterNodes());
			}
			if (lettuce.getSentinelConfiguration() != null) {
				RedisSentinelConfiguration sentinel = lettuce.getSentinelConfiguration();
				String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
				return "master " + master + " of the Sentinels " + nodes(sentinel.getSentinels());
			}
			return lettuce.getHostName() + ":" + lettuce.getPort();
		}
		return "the application's RedisConnectionFactory";
	}

	private static String nodes(Collection<RedisNode> nodes) {
		StringJoiner joined = new StringJoiner(",");
		nodes.forEach((node) -> joined.add(node.getHost() + ":" + node.getPort()));
		return joined.toString();
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

	/**
	 * Return how Redis makes room when it is full, as {@code CONFIG GET} reports it
	 * (every node of a cluster alike is assumed).
	 * @return {@code maxmemory-policy} and {@code maxmemory}, or {@code null} when Redis
	 * does not say, as managed services that refuse {@code CONFIG} do
	 */
	public Eviction eviction() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			String policy = setting(connection.serverCommands().getConfig("maxmemory-policy"), "maxmemory-policy");
			String maxmemory = setting(connection.serverCommands().getConfig("maxmemory"), "maxmemory");
			return (policy != null && maxmemory != null) ? new Eviction(policy, Long.parseLong(maxmemory)) : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	// A cluster's answer names each node before the setting's name.
	private static String setting(java.util.Properties config, String name) {
		if (config == null) {
			return null;
		}
		for (String key : config.stringPropertyNames()) {
			if (key.equals(name) || key.endsWith("." + name)) {
				return config.getProperty(key);
			}
		}
		return null;
	}

	/**
	 * How Redis makes room when it is full.
	 *
	 * @param policy the {@code maxmemory-policy}
	 * @param maxmemory the {@code maxmemory} in bytes, 0 for none
	 */
	public record Eviction(String policy, long maxmemory) {

		/**
		 * Return whether Redis drops keys when it is full: a limit of memory and a policy
		 * other than {@code noeviction}. Limiter's keys all expire, so {@code volatile-*}
		 * policies drop them too.
		 * @return whether counters can be dropped
		 */
		public boolean dropsKeys() {
			return this.maxmemory > 0 && !"noeviction".equals(this.policy);
		}

		/**
		 * Say what an evicting Redis does to limits and how to fix it, for the startup
		 * warning and the health details.
		 * @return the text, which starts after the words "Redis at host:port"
		 */
		public String problem() {
			return "drops keys when it is full (maxmemory-policy " + this.policy + ", maxmemory " + this.maxmemory
					+ " bytes): a dropped counter forgets its calls and admits them again, so limits can be "
					+ "exceeded without a word. Give the Redis that counts limits maxmemory-policy noeviction (a "
					+ "full Redis then refuses writes instead of forgetting counts), or memory to spare";
		}

	}

	/**
	 * Close a client of this connection when the context closes, before the limiter's
	 * factory: the limiter's script executor, whose connection and event-loop reference
	 * are its own.
	 * @param client the client, such as a {@code RedisRateLimiter}
	 */
	public void closeOnDestroy(AutoCloseable client) {
		this.clients.add(client);
	}

	@Override
	public void destroy() {
		for (AutoCloseable client : this.clients) {
			try {
				client.close();
			}
			catch (Exception ex) {
				// Closing anyway: the factory's shutdown below closes what is left.
				logger.debug("Closing {} failed", client, ex);
			}
		}
		if (isDedicated()) {
			((LettuceConnectionFactory) this.connectionFactory).destroy();
		}
	}

}
