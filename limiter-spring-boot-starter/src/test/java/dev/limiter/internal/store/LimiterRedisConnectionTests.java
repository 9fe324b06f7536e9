package dev.limiter.internal.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link LimiterRedisConnection} closes when the context closes: its clients first,
 * each even when another fails, then its own factory, never the application's.
 */
class LimiterRedisConnectionTests {

	private final List<String> closed = new ArrayList<>();

	@Test
	void closesItsClientsThenItsOwnFactory() {
		LimiterRedisConnection connection = LimiterRedisConnection.dedicated(factory(), Duration.ofMillis(50));
		connection.closeOnDestroy(() -> {
			this.closed.add("failing client");
			throw new IllegalStateException("already closed");
		});
		connection.closeOnDestroy(() -> this.closed.add("executor"));
		connection.destroy();
		assertThat(this.closed).containsExactly("failing client", "executor", "factory");
	}

	@Test
	void leavesTheApplicationsFactoryToTheApplication() {
		RedisConnectionFactory applications = factory();
		LimiterRedisConnection connection = LimiterRedisConnection.shared(applications);
		connection.closeOnDestroy(() -> this.closed.add("executor"));
		connection.destroy();
		assertThat(this.closed).containsExactly("executor");
	}

	/** A factory that is never started and records its destruction. */
	private LettuceConnectionFactory factory() {
		return new LettuceConnectionFactory() {

			@Override
			public void destroy() {
				LimiterRedisConnectionTests.this.closed.add("factory");
			}

		};
	}

}
