package dev.limiter.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.annotation.RateLimit;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's "Brute-force protection" example, its YAML read from the guide as written,
 * on two instances over one real Redis and over HTTP: failed logins count, successful
 * ones do not, the sixth attempt starts an hour's penalty that every instance keeps (the
 * right password included), another user is unaffected, the {@code ratelimits} endpoint
 * shows the penalty and its reset lifts it on every instance.
 */
class BruteForceGuideIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static String section;

	@BeforeAll
	static void start() throws Exception {
		redis.flushAll();
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		section = guide.substring(guide.indexOf("### Brute-force protection"),
				guide.indexOf("### Token budgets for AI endpoints"));
		int yamlStart = section.indexOf("```yaml") + 7;
		String yaml = section.substring(yamlStart, section.indexOf("```", yamlStart));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("guide",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(LoginApplication.class).web(WebApplicationType.SERVLET)
				.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
				.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
						"spring.data.redis.port=" + redis.port())
				.run());
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void fiveFailuresThenAnHoursPenaltyOnEveryInstanceLiftedByAReset() throws Exception {
		for (int i = 0; i < 10; i++) {
			assertThat(login(i % 2, "bob", "secret").statusCode()).as("successes never count").isEqualTo(200);
		}
		for (int i = 0; i < 5; i++) {
			assertThat(login(i % 2, "ann", "guess" + i).statusCode()).as("failed attempt %d", i + 1).isEqualTo(401);
		}
		int served = Logins.served.get();
		HttpResponse<String> sixth = login(0, "ann", "secret");
		assertThat(sixth.statusCode()).isEqualTo(429);
		assertThat(sixth.headers().firstValue("Retry-After")).hasValue("3600");
		long scripts = redis.scriptCalls();
		for (int i = 0; i < 20; i++) {
			assertThat(login(0, "ann", "guess").statusCode()).isEqualTo(429);
		}
		assertThat(redis.scriptCalls()).as("refused attempts answered by the rejection cache, without Redis")
			.isEqualTo(scripts);
		HttpResponse<String> elsewhere = login(1, "ann", "secret");
		assertThat(elsewhere.statusCode()).as("the other instance keeps the penalty").isEqualTo(429);
		assertThat(Long.parseLong(elsewhere.headers().firstValue("Retry-After").orElseThrow())).isBetween(3590L, 3600L);
		assertThat(Logins.served.get()).as("refused before the method runs").isEqualTo(served);
		assertThat(login(1, "bob", "secret").statusCode()).as("another user").isEqualTo(200);
		// The starter's tests have no Actuator web layer: the endpoint's operations are
		// called as Actuator calls them.
		Map<String, Object> usage = endpoint(0).usage("login", "ann").getBody();
		assertThat((List<?>) usage.get("limits")).singleElement().satisfies((limit) -> {
			Map<?, ?> row = (Map<?, ?>) limit;
			assertThat(row.get("penalty")).isEqualTo("1h");
			assertThat((Long) row.get("penaltyEndsAfterMillis")).isBetween(3_590_000L, 3_600_000L);
			assertThat(row.get("remaining")).isEqualTo(0L);
		});
		assertThat(usage.get("known")).isEqualTo(true);
		Map<?, ?> listed = (Map<?, ?>) endpoint(1).limits().get("limits");
		assertThat(listed.get("n:login").toString()).contains("penalty=1h");
		endpoint(1).reset("login", "ann");
		assertThat(login(1, "ann", "secret").statusCode()).as("the reset lifted the penalty").isEqualTo(200);
		// the other instance forgets the rejection it remembers when the reset's message
		// reaches it over Redis pub/sub
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(login(0, "ann", "secret").statusCode()).isEqualTo(200));
	}

	@Test
	void theReadmesExampleIsTheGuidesOne() throws Exception {
		String readme = Files.readString(Path.of("..", "README.md"));
		int javaStart = section.indexOf("```java");
		int yamlEnd = section.indexOf("```", section.indexOf("```yaml") + 7) + 3;
		String java = section.substring(javaStart, section.indexOf("```", javaStart + 7) + 3);
		String yaml = section.substring(section.indexOf("```yaml"), yamlEnd);
		assertThat(readme).contains(java).contains(yaml);
	}

	@Test
	void theGuidesAnnotationIsTheOneTested() throws Exception {
		int javaStart = section.indexOf("```java") + 7;
		String java = section.substring(javaStart, section.indexOf("```", javaStart));
		String source = Files.readString(
				Path.of("src", "test", "java", "dev", "limiter", "web", "BruteForceGuideIntegrationTests.java"));
		for (String line : java.strip().split("\n")) {
			assertThat(source).contains(line.replace(" { ... }", "").strip());
		}
	}

	private static HttpResponse<String> login(int instance, String username, String password) throws Exception {
		return send(instance, "POST", "/login?username=" + username + "&password=" + password);
	}

	private static RateLimitsEndpoint endpoint(int instance) {
		return instances.get(instance).getBean(RateLimitsEndpoint.class);
	}

	private static HttpResponse<String> send(int instance, String method, String path) throws Exception {
		String port = instances.get(instance).getEnvironment().getProperty("local.server.port");
		return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class LoginApplication {

		@Bean
		Logins logins() {
			return new Logins();
		}

	}

	@RestController
	static class Logins {

		static final AtomicInteger served = new AtomicInteger();

		@RateLimit(name = "login", key = "#username", charge = "#result.statusCode.is2xxSuccessful() ? 0 : 1")
		@PostMapping("/login")
		ResponseEntity<String> login(@RequestParam String username, @RequestParam String password) {
			served.incrementAndGet();
			return "secret".equals(password) ? ResponseEntity.ok("welcome")
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
		}

	}

}
