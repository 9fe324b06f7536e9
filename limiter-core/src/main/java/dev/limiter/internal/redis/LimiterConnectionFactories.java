package dev.limiter.internal.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Derives the limiter's own Lettuce connection from the application's, so that a call
 * never waits on Redis longer than the limiter's timeout and no command is replayed.
 * <p>
 * The derived factory talks to the same servers with the same credentials, TLS, client
 * name and resources, and changes three things: a script call waits for Redis's answer at
 * most the limiter's timeout (the application's own Redis timeout is often seconds), plus
 * at most {@link #READ_GRACE} for an answer that arrived in time but that a busy JVM has
 * not read yet; connecting and other commands time out after both; and commands are
 * rejected while disconnected instead of queued, because Lettuce replays queued commands
 * after a reconnect, and a replayed script counts a call twice.
 */
public final class LimiterConnectionFactories {

	/**
	 * The longest wait between two reconnect attempts of the limiter's own connection.
	 */
	public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

	/**
	 * The longest a call waits, past the timeout, for this JVM to read an answer that
	 * Redis sent within the timeout.
	 */
	public static final Duration READ_GRACE = Duration.ofSeconds(1);

	private LimiterConnectionFactories() {
	}

	/**
	 * Create a started connection factory for the limiter from the application's.
	 * @param source the application's connection factory
	 * @param timeout the longest a call may wait on Redis
	 * @return a new, started factory; the caller destroys it
	 */
	public static LettuceConnectionFactory dedicated(LettuceConnectionFactory source, Duration timeout) {
		if (source == null) {
			throw new IllegalArgumentException("source must not be null");
		}
		requirePositive(timeout);
		LettuceClientConfiguration client = source.getClientConfiguration();
		LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
		if (client.isUseSsl()) {
			LettuceClientConfiguration.LettuceSslClientConfigurationBuilder ssl = builder.useSsl();
			if (!client.isVerifyPeer()) {
				ssl.disablePeerVerification();
			}
			if (client.isStartTls()) {
				ssl.startTls();
			}
			builder = ssl.and();
		}
		client.getClientName().ifPresent(builder::clientName);
		// Lettuce's default reconnect delay doubles up to 30s, so after a long outage the
		// limiter could stay degraded for half a minute after Redis is back; its own
		// resources cap the delay at one second. Resources the application set are kept.
		ClientResources ownResources = null;
		if (client.getClientResources().isPresent()) {
			builder.clientResources(client.getClientResources().get());
		}
		else {
			ownResources = ClientResources.builder()
				.reconnectDelay(Delay.exponential(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
				.build();
			builder.clientResources(ownResources);
		}
		client.getReadFrom().ifPresent(builder::readFrom);
		client.getRedisCredentialsProviderFactory().ifPresent(builder::redisCredentialsProviderFactory);
		// Lettuce's own deadlines leave room for the grace: whether an answer is late is
		// judged by the script runner, where the reply is read.
		Duration deadline = timeout.plus(READ_GRACE);
		builder.clientOptions(options(client.getClientOptions().orElse(null), source.isClusterAware(), deadline));
		builder.commandTimeout(deadline);
		builder.shutdownTimeout(Duration.ZERO);
		LettuceClientConfiguration configuration = builder.build();
		LettuceConnectionFactory factory;
		if (source.isClusterAware()) {
			factory = new DedicatedConnectionFactory(source.getClusterConfiguration(), configuration, ownResources,
					timeout);
		}
		else if (source.isRedisSentinelAware()) {
			factory = new DedicatedConnectionFactory(source.getSentinelConfiguration(), configuration, ownResources,
					timeout);
		}
		else {
			factory = new DedicatedConnectionFactory(source.getStandaloneConfiguration(), configuration, ownResources,
					timeout);
		}
		factory.afterPropertiesSet();
		return factory;
	}

	/**
	 * A factory that knows the limiter's timeout and shuts down the client resources it
	 * owns when it is destroyed.
	 */
	public static final class DedicatedConnectionFactory extends LettuceConnectionFactory {

		private final ClientResources ownResources;

		private final Duration replyTimeout;

		DedicatedConnectionFactory(RedisStandaloneConfiguration servers, LettuceClientConfiguration configuration,
				ClientResources ownResources, Duration replyTimeout) {
			super(servers, configuration);
			this.ownResources = ownResources;
			this.replyTimeout = replyTimeout;
		}

		DedicatedConnectionFactory(RedisSentinelConfiguration servers, LettuceClientConfiguration configuration,
				ClientResources ownResources, Duration replyTimeout) {
			super(servers, configuration);
			this.ownResources = ownResources;
			this.replyTimeout = replyTimeout;
		}

		DedicatedConnectionFactory(RedisClusterConfiguration servers, LettuceClientConfiguration configuration,
				ClientResources ownResources, Duration replyTimeout) {
			super(servers, configuration);
			this.ownResources = ownResources;
			this.replyTimeout = replyTimeout;
		}

		/**
		 * Return how long Redis may take to answer a script call.
		 * @return the limiter's timeout
		 */
		public Duration replyTimeout() {
			return this.replyTimeout;
		}

		@Override
		public void destroy() {
			super.destroy();
			if (this.ownResources != null) {
				this.ownResources.shutdown(0, 1, TimeUnit.SECONDS);
			}
		}

	}

	/**
	 * Check a timeout the limiter is given.
	 * @param timeout the timeout
	 * @throws IllegalArgumentException unless it is positive
	 */
	public static void requirePositive(Duration timeout) {
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
	}

	/**
	 * The longest the limiter's cluster connection waits between adaptive topology
	 * refreshes.
	 */
	static final int MAX_ADAPTIVE_REFRESH_SECONDS = 1;

	static ClientOptions options(ClientOptions original, boolean cluster, Duration timeout) {
		ClientOptions base = (original != null) ? original
				: (cluster ? ClusterClientOptions.create() : ClientOptions.create());
		SocketOptions socket = base.getSocketOptions().mutate().connectTimeout(timeout).build();
		ClientOptions.Builder builder = base.mutate()
			.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.socketOptions(socket)
			.timeoutOptions(TimeoutOptions.enabled(timeout));
		if (builder instanceof ClusterClientOptions.Builder clusterBuilder
				&& base instanceof ClusterClientOptions clusterBase) {
			clusterBuilder.topologyRefreshOptions(adaptive(clusterBase.getTopologyRefreshOptions()));
		}
		return builder.build();
	}

	/**
	 * Return the application's topology refresh options with every adaptive trigger on
	 * (at least the ones it chose, if any), at most one adaptive refresh per
	 * {@value #MAX_ADAPTIVE_REFRESH_SECONDS} s. When a master fails over, its slots move
	 * to the promoted replica: without a trigger, Lettuce learns that only from a
	 * periodic refresh, if any, and the limiter decides by its failure policy meanwhile;
	 * and a refresh triggered while the cluster has not promoted yet learns nothing, so
	 * the next one must not wait long.
	 */
	static ClusterTopologyRefreshOptions adaptive(ClusterTopologyRefreshOptions refresh) {
		ClusterTopologyRefreshOptions.Builder builder = ClusterTopologyRefreshOptions.builder();
		if (refresh.getAdaptiveRefreshTriggers().isEmpty()) {
			builder.enableAllAdaptiveRefreshTriggers();
		}
		else {
			// At least the application's: Lettuce 7's builder starts with every trigger.
			builder.enableAdaptiveRefreshTrigger(
					refresh.getAdaptiveRefreshTriggers().toArray(ClusterTopologyRefreshOptions.RefreshTrigger[]::new));
		}
		Duration timeout = refresh.getAdaptiveRefreshTimeout();
		Duration most = Duration.ofSeconds(MAX_ADAPTIVE_REFRESH_SECONDS);
		return builder.adaptiveRefreshTriggersTimeout((timeout.compareTo(most) > 0) ? most : timeout)
			.refreshTriggersReconnectAttempts(refresh.getRefreshTriggersReconnectAttempts())
			.dynamicRefreshSources(refresh.useDynamicRefreshSources())
			.closeStaleConnections(refresh.isCloseStaleConnections())
			.enablePeriodicRefresh(refresh.isPeriodicRefreshEnabled())
			.refreshPeriod(refresh.getRefreshPeriod())
			.build();
	}

}
