package dev.limiter.sample;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.ClassPathResource;

import dev.limiter.testkit.LimiterTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins every byte of the sample's 429 on a real Tomcat, as a client reads it off the
 * socket (status line, header order, chunked body, problem+json), but the {@code Date}: a
 * faster rejection path must not change what a client sees.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.demo-redis=false")
@LimiterTest
class RejectionBytesTests {

	@LocalServerPort
	private int port;

	@Test
	void the429IsByteForByteTheOneOnRecord() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/search?q=redis")).startsWith("HTTP/1.1 200 ");
		}
		String expected = new ClassPathResource("rejection-429.http").getContentAsString(StandardCharsets.UTF_8);
		// The first rejection comes from the store, the next from whatever a limiter
		// remembers: the same bytes either way.
		String first = get("/search?q=redis");
		// Kept for a look when the record and the response part.
		Files.writeString(Path.of("target", "rejection-429.actual"), first);
		assertThat(first).isEqualTo(expected);
		assertThat(get("/search?q=redis")).isEqualTo(expected);
	}

	private String get(String path) throws Exception {
		return RawHttp.get(this.port, path);
	}

}
