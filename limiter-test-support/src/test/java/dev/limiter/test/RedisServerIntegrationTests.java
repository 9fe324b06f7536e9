package dev.limiter.test;

import java.io.UncheckedIOException;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RedisServerIntegrationTests {

	@Test
	void startsAnswersAndSurvivesPauseKillAndRestart() {
		try (RedisServer server = RedisServer.start()) {
			assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
			assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
			server.pause();
			try (RespClient client = new RespClient(server.host(), server.port(), Duration.ofMillis(200))) {
				assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.call("PING"));
			}
			server.resume();
			assertThat(server.command("GET", "k")).isEqualTo("v");
			server.kill();
			assertThat(server.isRunning()).isFalse();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> server.command("PING"));
			server.restart();
			assertThat(server.isRunning()).isTrue();
			assertThat(server.command("GET", "k")).isNull();
			server.command("SET", "k", "v");
			server.flushAll();
			assertThat(server.command("DBSIZE")).isEqualTo(0L);
		}
	}

	@Test
	void sharedServerIsOnePerJvm() {
		assertThat(RedisServer.shared()).isSameAs(RedisServer.shared());
		assertThat(RedisServer.shared().command("PING")).isEqualTo("PONG");
	}

	@Test
	void errorsComeBackAsErrorReplies() {
		assertThat(RedisServer.shared().command("NOSUCHCOMMAND")).isInstanceOf(RespClient.ErrorReply.class);
	}

}
