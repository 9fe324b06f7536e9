package dev.limiter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.ClassPathResource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins every byte of the sample's 503, the answer of a fail-closed limit while Redis
 * cannot answer (here: nothing listens where Redis should be), on a real Tomcat but the
 * {@code Date}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-redis=false", "limiter.store=redis", "limiter.failure.policy=fail-closed" })
class UnavailableBytesTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redisWhereNothingListens(DynamicPropertyRegistry registry) throws IOException {
		int closed;
		try (ServerSocket socket = new ServerSocket(0)) {
			closed = socket.getLocalPort();
		}
		registry.add("spring.data.redis.port", () -> closed);
	}

	@Test
	void the503IsByteForByteTheOneOnRecord() throws Exception {
		String expected = new ClassPathResource("rejection-503.http").getContentAsString(StandardCharsets.UTF_8);
		String actual = RawHttp.get(this.port, "/search?q=redis");
		// Kept for a look when the record and the response part.
		Files.writeString(Path.of("target", "rejection-503.actual"), actual);
		assertThat(actual).isEqualTo(expected);
	}

}
