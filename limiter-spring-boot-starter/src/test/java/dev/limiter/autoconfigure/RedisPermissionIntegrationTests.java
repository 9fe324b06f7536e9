package dev.limiter.autoconfigure;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.time.Duration;

import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis user that may not run scripts is a misconfiguration, found at startup, not an
 * outage that the failure policy would hide behind admitted calls.
 */
class RedisPermissionIntegrationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	private RedisServer redis;

	@BeforeEach
	void start() {
		this.redis = RedisServer.start();
		this.redis.command("ACL", "SETUSER", "noscripts", "on", ">secret", "~*", "+@all", "-@scripting");
		this.redis.command("ACL", "SETUSER", "scripts", "on", ">secret", "~*", "+@all");
	}

	@AfterEach
	void stop() {
		this.redis.close();
	}

	@Test
	void aUserWithoutScriptingStopsTheStartNamingThePermission() {
		this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory("noscripts")).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith("NOPERM");
			LimiterSetupException failure = findSetupFailure(context.getStartupFailure());
			assertThat(failure).hasMessageContaining("the Redis user may not run scripts");
			FailureAnalysis analysis = new LimiterSetupFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("+evalsha +eval").contains("+@scripting");
		});
	}

	@Test
	void aUserWithScriptingStarts() {
		this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory("scripts")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RateLimiter.class).acquire("k", Limit.of(1, Duration.ofMinutes(1))).isDegraded())
				.isFalse();
		});
	}

	@Test
	void aWrongPasswordStopsTheStartNamingThePasswordProperty() {
		this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory("scripts", "wrong"))
			.run((context) -> {
				assertThat(context).hasFailed();
				LimiterSetupException failure = findSetupFailure(context.getStartupFailure());
				assertThat(failure).hasMessageContaining("it refused the application's credentials (WRONGPASS");
				FailureAnalysis analysis = new LimiterSetupFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getAction()).contains("spring.data.redis.password");
			});
	}

	@Test
	void noPasswordWhereRedisAsksForOneStopsTheStart() {
		this.redis.command("CONFIG", "SET", "requirepass", "secret");
		this.contextRunner
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(
							new RedisStandaloneConfiguration(this.redis.host(), this.redis.port())))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(findSetupFailure(context.getStartupFailure()))
					.hasMessageContaining("it refused the application's credentials (NOAUTH");
			});
	}

	@Test
	void aConnectTimeoutIsSlownessNotAbsence() {
		assertThat(RedisStoreConfiguration
			.refused(new RuntimeException(new io.netty.channel.ConnectTimeoutException("connection timed out"))))
			.isFalse();
		assertThat(RedisStoreConfiguration.refused(new RuntimeException(new java.net.ConnectException("refused"))))
			.isTrue();
		assertThat(RedisStoreConfiguration.refused(new RuntimeException(new java.net.UnknownHostException("redis"))))
			.isTrue();
	}

	private LettuceConnectionFactory factory(String user) {
		return factory(user, "secret");
	}

	private LettuceConnectionFactory factory(String user, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(this.redis.host(),
				this.redis.port());
		configuration.setUsername(user);
		configuration.setPassword(password);
		return new LettuceConnectionFactory(configuration);
	}

	private static LimiterSetupException findSetupFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LimiterSetupException setup) {
				return setup;
			}
		}
		throw new AssertionError("No LimiterSetupException in " + failure);
	}

}
