package dev.limiter.redis;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Derives the limiter's own Lettuce connection from the application's, so that a call
 * never waits on Redis longer than the limiter's timeout and no command is replayed.
 * <p>
 * The derived factory talks to the same servers with the same credentials, TLS, client
 * name and resources, and changes three things: commands time out after the limiter's
 * timeout (the application's own Redis timeout is often seconds); connecting times out as
 * fast; and commands are rejected while disconnected instead of queued, because Lettuce
 * replays queued commands after a reconnect, and a replayed script counts a call twice.
 */
public final class LimiterConnectionFactories {

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
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
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
		client.getClientResources().ifPresent(builder::clientResources);
		client.getReadFrom().ifPresent(builder::readFrom);
		client.getRedisCredentialsProviderFactory().ifPresent(builder::redisCredentialsProviderFactory);
		builder.clientOptions(options(client.getClientOptions().orElse(null), source.isClusterAware(), timeout));
		builder.commandTimeout(timeout);
		builder.shutdownTimeout(Duration.ZERO);
		LettuceClientConfiguration configuration = builder.build();
		LettuceConnectionFactory factory;
		if (source.isClusterAware()) {
			factory = new LettuceConnectionFactory(source.getClusterConfiguration(), configuration);
		}
		else if (source.isRedisSentinelAware()) {
			factory = new LettuceConnectionFactory(source.getSentinelConfiguration(), configuration);
		}
		else {
			factory = new LettuceConnectionFactory(source.getStandaloneConfiguration(), configuration);
		}
		factory.afterPropertiesSet();
		return factory;
	}

	static ClientOptions options(ClientOptions original, boolean cluster, Duration timeout) {
		ClientOptions base = (original != null) ? original
				: (cluster ? ClusterClientOptions.create() : ClientOptions.create());
		SocketOptions socket = base.getSocketOptions().mutate().connectTimeout(timeout).build();
		return base.mutate()
			.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.socketOptions(socket)
			.timeoutOptions(TimeoutOptions.enabled(timeout))
			.build();
	}

}
