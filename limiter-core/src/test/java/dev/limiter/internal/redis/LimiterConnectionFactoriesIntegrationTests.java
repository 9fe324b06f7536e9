package dev.limiter.internal.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimiterConnectionFactoriesIntegrationTests {

	private final Duration timeout = Duration.ofMillis(50);

	@Test
	void keepsTheServersAndSetsTimeoutsAndNoReplay() {
		LettuceConnectionFactory application = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("redis.internal", 6380),
				LettuceClientConfiguration.builder()
					.clientName("orders")
					.commandTimeout(Duration.ofSeconds(60))
					.build());
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, this.timeout);
		try {
			assertThat(dedicated.getStandaloneConfiguration().getHostName()).isEqualTo("redis.internal");
			assertThat(dedicated.getStandaloneConfiguration().getPort()).isEqualTo(6380);
			LettuceClientConfiguration client = dedicated.getClientConfiguration();
			// Lettuce's own deadline leaves room for the read grace; the script runner
			// judges the timeout itself.
			assertThat(client.getCommandTimeout()).isEqualTo(this.timeout.plus(LimiterConnectionFactories.READ_GRACE));
			assertThat(client.getClientName()).hasValue("orders");
			ClientOptions options = client.getClientOptions().orElseThrow();
			assertThat(options.getDisconnectedBehavior()).isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
			assertThat(options.isAutoReconnect()).isTrue();
			assertThat(options.getSocketOptions().getConnectTimeout())
				.isEqualTo(this.timeout.plus(LimiterConnectionFactories.READ_GRACE));
		}
		finally {
			dedicated.destroy();
		}
	}

	@Test
	void capsTheReconnectDelayAndShutsItsResourcesDown() {
		LettuceConnectionFactory application = new LettuceConnectionFactory(new RedisStandaloneConfiguration());
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, this.timeout);
		ClientResources resources = dedicated.getClientConfiguration().getClientResources().orElseThrow();
		assertThat(resources.reconnectDelay().createDelay(30))
			.isEqualTo(LimiterConnectionFactories.MAX_RECONNECT_DELAY);
		assertThat(resources.reconnectDelay().createDelay(1)).isLessThan(Duration.ofMillis(10));
		dedicated.destroy();
		assertThat(resources.eventExecutorGroup().isShuttingDown()).isTrue();
	}

	@Test
	void keepsAClusterAClusterWithClusterOptions() {
		LettuceConnectionFactory application = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of("127.0.0.1:7000", "127.0.0.1:7001")));
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, this.timeout);
		try {
			assertThat(dedicated.isClusterAware()).isTrue();
			assertThat(dedicated.getClusterConfiguration().getClusterNodes()).hasSize(2);
			assertThat(dedicated.getClientConfiguration().getClientOptions())
				.containsInstanceOf(ClusterClientOptions.class);
		}
		finally {
			dedicated.destroy();
		}
	}

	@Test
	void refreshesAClustersTopologyOnEveryAdaptiveTriggerAtLeastEverySecond() {
		// No trigger on Lettuce 6 (adaptive refresh is opt-in there), Lettuce's default
		// ones on 7.
		ClusterTopologyRefreshOptions none = ClusterTopologyRefreshOptions.builder()
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(30))
			.enablePeriodicRefresh(Duration.ofMinutes(5))
			.build();
		LettuceConnectionFactory application = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of("127.0.0.1:7000")),
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(none).build())
					.build());
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, this.timeout);
		try {
			ClusterTopologyRefreshOptions refresh = ((ClusterClientOptions) dedicated.getClientConfiguration()
				.getClientOptions()
				.orElseThrow()).getTopologyRefreshOptions();
			assertThat(refresh.getAdaptiveRefreshTriggers())
				.containsExactlyInAnyOrder(ClusterTopologyRefreshOptions.RefreshTrigger.values());
			assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(1));
			assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
			assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofMinutes(5));
		}
		finally {
			dedicated.destroy();
		}
	}

	@Test
	void keepsTheTriggersAndAShorterTimeoutAnApplicationChose() {
		ClusterTopologyRefreshOptions chosen = ClusterTopologyRefreshOptions.builder()
			.enableAdaptiveRefreshTrigger(ClusterTopologyRefreshOptions.RefreshTrigger.MOVED_REDIRECT)
			.adaptiveRefreshTriggersTimeout(Duration.ofMillis(200))
			.build();
		ClusterTopologyRefreshOptions refresh = LimiterConnectionFactories.adaptive(chosen);
		assertThat(refresh.getAdaptiveRefreshTriggers())
			.contains(ClusterTopologyRefreshOptions.RefreshTrigger.MOVED_REDIRECT);
		assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofMillis(200));
	}

	@Test
	void rejectsBadArguments() {
		assertThatIllegalArgumentException().isThrownBy(() -> LimiterConnectionFactories.dedicated(null, this.timeout))
			.withMessage("source must not be null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LimiterConnectionFactories.dedicated(new LettuceConnectionFactory(), Duration.ZERO))
			.withMessage("timeout must be positive, was PT0S");
	}

}
