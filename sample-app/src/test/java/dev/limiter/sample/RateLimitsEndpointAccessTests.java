package dev.limiter.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint is read-only unless an operator allows its writes: the
 * sample started without its {@code application.yml}, so without
 * {@code management.endpoint.ratelimits.access=unrestricted}, refuses an override and a
 * reset over HTTP even from its admin, and still answers reads.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-redis=false", "spring.config.name=no-configuration-file",
				"management.endpoints.web.exposure.include=health,ratelimits", "limiter.limits.search.threshold=3",
				"limiter.limits.search.period=10s" })
class RateLimitsEndpointAccessTests {

	private static final RedisServer redis = RedisServer.shared();

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@Test
	void byDefaultTheEndpointReadsButTakesNoWrites() throws Exception {
		assertThat(send("GET", "/actuator/ratelimits", null).statusCode()).isEqualTo(200);
		assertThat(send("GET", "/actuator/ratelimits/search?key=u:alice", null).statusCode()).isEqualTo(200);
		HttpResponse<String> override = send("POST", "/actuator/ratelimits/search", "{\"threshold\": 1000}");
		assertThat(override.statusCode()).as(override.body()).isIn(404, 405);
		HttpResponse<String> reset = send("DELETE", "/actuator/ratelimits/search?key=u:alice", null);
		assertThat(reset.statusCode()).as(reset.body()).isIn(404, 405);
		assertThat(send("GET", "/actuator/ratelimits/search", null).body()).doesNotContain("1000");
	}

	private HttpResponse<String> send(String method, String path, String json) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method,
					(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody())
			.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString("admin:password".getBytes(StandardCharsets.UTF_8)));
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
