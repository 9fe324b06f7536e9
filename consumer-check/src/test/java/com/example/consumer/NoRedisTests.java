package com.example.consumer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as a new user first runs it: no Redis anywhere. Limits still hold, each
 * counted in memory on this instance, and the startup line says so in plain words.
 */
class NoRedisTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void withoutRedisLimitsAreCountedOnThisInstance() throws Exception {
		int port = closedPort();
		ByteArrayOutputStream log = new ByteArrayOutputStream();
		PrintStream console = System.out;
		ConfigurableApplicationContext application;
		// Logging is set up during the start, onto the System.out of that moment.
		System.setOut(new PrintStream(new Tee(console, log), true, StandardCharsets.UTF_8));
		try {
			application = SpringApplication.run(ConsumerApplication.class, "--server.port=0",
					"--spring.data.redis.port=" + port);
		}
		finally {
			System.setOut(console);
		}
		try {
			assertThat(log.toString(StandardCharsets.UTF_8))
				.contains("limits are counted in memory on this instance until Redis answers at localhost:" + port);
			String base = "http://127.0.0.1:" + application.getEnvironment().getProperty("local.server.port");
			for (int i = 0; i < 3; i++) {
				HttpResponse<String> admitted = get(base + "/three");
				assertThat(admitted.statusCode()).isEqualTo(200);
				assertThat(admitted.headers().firstValue("RateLimit")).hasValue("\"default\";r=" + (2 - i) + ";t=30");
			}
			HttpResponse<String> fourth = get(base + "/three");
			assertThat(fourth.statusCode()).isEqualTo(429);
			assertThat(fourth.headers().firstValue("Retry-After")).isPresent();
			assertThat(fourth.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(fourth.body()).contains("\"status\":429");
			List<Integer> statuses = Concurrent.statuses(java.util.Collections.nCopies(100, URI.create(base + "/ten")));
			assertThat(statuses).filteredOn((status) -> status == 200).hasSize(10);
			assertThat(statuses).filteredOn((status) -> status == 429).hasSize(90);
		}
		finally {
			application.close();
		}
	}

	private HttpResponse<String> get(String uri) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
	}

	/** A port on which nothing listens: taken from the system, then released. */
	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static final class Tee extends OutputStream {

		private final OutputStream first;

		private final OutputStream second;

		Tee(OutputStream first, OutputStream second) {
			this.first = first;
			this.second = second;
		}

		@Override
		public synchronized void write(int b) throws IOException {
			this.first.write(b);
			this.second.write(b);
		}

		@Override
		public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
			this.first.write(bytes, offset, length);
			this.second.write(bytes, offset, length);
		}

	}

}
