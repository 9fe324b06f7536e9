package dev.limiter.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code ratelimits} endpoint over HTTP while Redis is stalled ({@code SIGSTOP}) and
 * then gone ({@code SIGKILL}), with the application's Redis timeout at Spring Boot's
 * default of a minute: every operation answers within the limiter's timeout and a margin,
 * a 503 says Redis is not answering and whether anything changed, and the list of limits,
 * which needs no Redis, still answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-redis=false", "spring.data.redis.timeout=60s" })
class RateLimitsEndpointOutageTests {

	/**
	 * The limiter's default timeout, 50 ms, plus scheduling on a loaded 2-core machine.
	 */
	private static final Duration BOUND = Duration.ofSeconds(2);

	private static final String OVERRIDE = "{\"threshold\": 7}";

	private static final RedisServer redis = RedisServer.start();

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void everyOperationAnswersWithinTheLimitersTimeoutAndSaysWhetherAnythingChanged() throws Exception {
		assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(200);
		assertThat(send("POST", "/actuator/ratelimits/search", "admin", OVERRIDE).statusCode()).isEqualTo(200);

		redis.pause();
		try {
			Timed list = timed("GET", "/actuator/ratelimits", null);
			assertThat(list.response.statusCode()).as("the limits need no Redis").isEqualTo(200);
			assertThat(list.response.body()).contains("\"n:search\"");
			Timed described = timed("GET", "/actuator/ratelimits/search", null);
			assertThat(described.response.statusCode()).as("this instance's ranking").isEqualTo(200);
			assertThat(described.took).isLessThan(BOUND);
			Timed read = timed("GET", "/actuator/ratelimits/search?key=u:alice", null);
			assertThat(read.response.statusCode()).isEqualTo(503);
			assertThat(read.response.body()).contains("Redis did not answer in time").contains("nothing was read");
			assertThat(read.took).isLessThan(BOUND);
			Timed reset = timed("DELETE", "/actuator/ratelimits/search?key=u:alice", null);
			assertThat(reset.response.statusCode()).isEqualTo(503);
			assertThat(reset.response.body()).as("refused at the read before any reset was sent")
				.contains("nothing was changed");
			assertThat(reset.took).isLessThan(BOUND);
			Timed override = timed("POST", "/actuator/ratelimits/search", OVERRIDE);
			assertThat(override.response.statusCode()).isEqualTo(503);
			assertThat(override.response.body())
				.as("a command sent to a stalled Redis runs when it wakes: no promise that nothing changed")
				.contains("Redis did not answer in time")
				.contains("may be made in part or still be made when Redis answers")
				.contains("GET /actuator/ratelimits/search shows what applies");
			assertThat(override.took).isLessThan(BOUND);
		}
		finally {
			redis.resume();
		}

		redis.kill();
		Timed list = timed("GET", "/actuator/ratelimits", null);
		assertThat(list.response.statusCode()).isEqualTo(200);
		Timed read = timed("GET", "/actuator/ratelimits/search?key=u:alice", null);
		assertThat(read.response.statusCode()).isEqualTo(503);
		assertThat(read.response.body()).contains("Redis is not answering").contains("nothing was read");
		assertThat(read.took).isLessThan(BOUND);
		Timed reset = timed("DELETE", "/actuator/ratelimits/search?key=u:alice", null);
		assertThat(reset.response.statusCode()).isEqualTo(503);
		assertThat(reset.response.body()).contains("Redis is not answering").contains("nothing was changed");
		assertThat(reset.took).isLessThan(BOUND);
		Timed override = timed("POST", "/actuator/ratelimits/search", "{\"threshold\": 9}");
		assertThat(override.response.statusCode()).isEqualTo(503);
		assertThat(override.response.body()).contains("Redis is not answering").contains("nothing was changed");
		assertThat(override.took).isLessThan(BOUND);
		assertThat(send("GET", "/actuator/ratelimits", "admin").body()).as("the refused change was not made")
			.doesNotContain("\"threshold\":9");

		redis.restart();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> send("POST", "/actuator/ratelimits/search", "admin", "{\"threshold\": null}")
				.statusCode() == 200);
	}

	private Timed timed(String method, String path, String json) throws Exception {
		long start = System.nanoTime();
		HttpResponse<String> response = send(method, path, "admin", json);
		return new Timed(response, Duration.ofNanos(System.nanoTime() - start));
	}

	private HttpResponse<String> send(String method, String path, String user) throws Exception {
		return send(method, path, user, null);
	}

	private HttpResponse<String> send(String method, String path, String user, String json) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(90))
			.method(method,
					(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		if (user != null) {
			request.header("Authorization", "Basic "
					+ Base64.getEncoder().encodeToString((user + ":password").getBytes(StandardCharsets.UTF_8)));
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private record Timed(HttpResponse<String> response, Duration took) {
	}

}
