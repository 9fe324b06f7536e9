package dev.limiter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that drops keys when it is full forgets counters and lets callers in again
 * without a word: the start says so plainly.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisEvictionIntegrationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void aRedisThatEvictsWhenFullIsNamedAtStartup(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")) {
			this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(output)
				.contains("drops keys when it is full (maxmemory-policy allkeys-lru, maxmemory " + 64 * 1024 * 1024
						+ " bytes)")
				.contains("maxmemory-policy noeviction");
		}
	}

	@Test
	void aRedisThatNeverEvictsIsNotWarnedAbout(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start("--maxmemory", "64mb", "--maxmemory-policy", "noeviction")) {
			this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory(redis))
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(output).doesNotContain("drops keys when it is full");
		}
	}

	private static LettuceConnectionFactory factory(RedisServer redis) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
	}

}
