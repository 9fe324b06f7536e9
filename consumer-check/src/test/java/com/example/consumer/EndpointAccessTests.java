package com.example.consumer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ratelimits endpoint exposed over HTTP the way a user exposes it: its reads are
 * answered, its writes (overrides, resets) are refused unless
 * {@code management.endpoint.ratelimits.access=unrestricted} opens them, on every Spring
 * Boot line this check runs on.
 */
class EndpointAccessTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void writesAreRefusedByDefaultAndAnsweredOnceOpened() throws Exception {
		System.out.println("Endpoint access on Spring Boot " + SpringBootVersion.getVersion());
		try (RedisServer redis = RedisServer.start()) {
			List<ConfigurableApplicationContext> instances = new ArrayList<>();
			try {
				ConfigurableApplicationContext closed = start(redis, instances);
				Map<?, ?> scopes = (Map<?, ?>) closed.getBean(RateLimitsEndpoint.class).limits().get("limits");
				String greet = scopes.keySet()
					.stream()
					.map(String::valueOf)
					.filter((scope) -> scope.endsWith(".greet"))
					.findFirst()
					.orElseThrow(() -> new AssertionError("no scope of greet in " + scopes.keySet()));
				assertThat(send(closed, "GET", "/actuator/ratelimits", null).statusCode()).isEqualTo(200);
				assertThat(send(closed, "GET", "/greet", null).statusCode()).isEqualTo(200);
				String reset = "/actuator/ratelimits/" + greet + "?key=ip:127.0.0.1";
				assertThat(send(closed, "GET", reset, null).body()).as("a read").contains("\"used\":1");
				assertThat(send(closed, "DELETE", reset, null).statusCode()).as("a reset, refused").isIn(404, 405);
				assertThat(send(closed, "POST", "/actuator/ratelimits/" + greet, "{\"threshold\": 50}").statusCode())
					.as("an override, refused")
					.isIn(404, 405);
				assertThat(send(closed, "GET", reset, null).body()).as("nothing reset").contains("\"used\":1");
				ConfigurableApplicationContext opened = start(redis, instances,
						"--management.endpoint.ratelimits.access=unrestricted");
				HttpResponse<String> answered = send(opened, "DELETE", reset, null);
				assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
				assertThat(send(closed, "GET", reset, null).body()).as("reset for every instance")
					.contains("\"used\":0");
			}
			finally {
				instances.forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	private static ConfigurableApplicationContext start(RedisServer redis, List<ConfigurableApplicationContext> instances,
			String... more) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redis.port(), "--management.endpoints.web.exposure.include=ratelimits"));
		arguments.addAll(List.of(more));
		ConfigurableApplicationContext context = SpringApplication.run(ConsumerApplication.class,
				arguments.toArray(String[]::new));
		instances.add(context);
		return context;
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path, String body)
			throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		return this.http.send(request
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
