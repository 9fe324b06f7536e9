package dev.limiter.benchmarks.peer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the peer benchmark honest: on a real Redis, with 3 calls per 60 s, Limiter and
 * Bucket4j each admit 3 calls of one caller and reject the fourth, keep their state in
 * that Redis, and the unlimited endpoint stays unlimited.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "peer.threshold=3", "peer.period-seconds=60" })
class PeerApplicationTests {

	private static final RedisServer redis = RedisServer.shared();

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void plainIsNeverLimited() throws Exception {
		for (int i = 0; i < 10; i++) {
			assertThat(get("/plain?q=redis").statusCode()).isEqualTo(200);
		}
	}

	@Test
	void eachLimiterAdmitsTheThresholdThenRejectsAndKeepsItsStateInRedis() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> admitted = get("/limiter?q=redis");
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.body()).contains("\"query\":\"redis\"");
		}
		HttpResponse<String> limiterRejected = get("/limiter?q=redis");
		assertThat(limiterRejected.statusCode()).isEqualTo(429);
		assertThat(limiterRejected.headers().firstValue("Retry-After")).isPresent();

		for (int i = 0; i < 3; i++) {
			HttpResponse<String> admitted = get("/bucket4j?q=redis");
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.body()).contains("\"query\":\"redis\"");
		}
		HttpResponse<String> bucket4jRejected = get("/bucket4j?q=redis");
		assertThat(bucket4jRejected.statusCode()).isEqualTo(429);
		assertThat(bucket4jRejected.headers().firstValue("X-Rate-Limit-Retry-After-Seconds")).isPresent();

		// Both decided in the Redis of spring.data.redis: Limiter under its key prefix,
		// Bucket4j under the filter's URL pattern and the caller's address.
		List<String> keys = keys();
		assertThat(keys).anyMatch((key) -> key.startsWith("peer:") && key.contains("search"));
		assertThat(keys).contains("/bucket4j.*-127.0.0.1");
	}

	private List<String> keys() {
		Object reply = redis.command("KEYS", "*");
		assertThat(reply).isInstanceOf(List.class);
		return ((List<?>) reply).stream().map(String::valueOf).toList();
	}

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
