package dev.limiter.graphql;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import tools.jackson.databind.json.JsonMapper;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's example, read from the README as written: its schema and YAML at startup,
 * its query over HTTP, and the responses it shows (the reset time and the seconds to wait
 * aside, which depend on the clock); the guide's YAML says the same.
 */
class ReadmeIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final JsonMapper json = JsonMapper.builder().build();

	@Test
	void theReadmesSchemaYamlAndQueryAnswerAsTheReadmeShows(@TempDir Path schemas) throws Exception {
		redis.flushAll();
		String readme = Files.readString(Path.of("README.md"));
		List<String> graphql = blocks(readme, "graphql");
		List<String> answers = blocks(readme, "json");
		Files.writeString(schemas.resolve("schema.graphqls"), graphql.get(0));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(blocks(readme, "yaml").get(0).getBytes(StandardCharsets.UTF_8)));
		try (ConfigurableApplicationContext server = new SpringApplicationBuilder(
				GraphQlIntegrationTests.LibraryApplication.class)
			.web(WebApplicationType.SERVLET)
			.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.properties("server.port=0", "server.address=127.0.0.1",
					"spring.graphql.schema.locations=" + schemas.toUri(), "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port())
			.run()) {
			int port = ((WebServerApplicationContext) server).getWebServer().getPort();

			HttpResponse<String> admitted = post(port, graphql.get(1));
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).hasValue("996");
			Map<String, Object> shown = read(answers.get(0));
			Map<String, Object> body = read(admitted.body());
			assertThat(body.get("data")).isEqualTo(shown.get("data"));
			assertThat(withoutReset(budget(body))).isEqualTo(withoutReset(budget(shown)));
			assertThat(Instant.parse((String) budget(body).get("resetAt"))).isAfter(Instant.now());

			String refusedQuery = readme.substring(readme.indexOf("`{ authors(limit: 997)") + 1);
			HttpResponse<String> refused = post(port, refusedQuery.substring(0, refusedQuery.indexOf('`')));
			assertThat(refused.statusCode()).isEqualTo(429);
			// until the bucket of the points spent leaves the hour: a bucket more at most
			assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 7200L);
			Map<String, Object> error = errors(read(refused.body())).get(0);
			Map<String, Object> shownError = errors(read(answers.get(1))).get(0);
			assertThat(waitless((String) error.get("message"))).isEqualTo(waitless((String) shownError.get("message")));
			Map<String, Object> extensions = GraphQlIntegrationTests.map(error.get("extensions"));
			Map<String, Object> shownExtensions = GraphQlIntegrationTests.map(shownError.get("extensions"));
			assertThat(extensions.keySet()).isEqualTo(shownExtensions.keySet());
			assertThat(extensions.get("classification")).isEqualTo(shownExtensions.get("classification"));
			assertThat(((Number) extensions.get("retryAfter")).longValue()).isBetween(1L, 7200L);
			assertThat(withoutReset(budget(extensions))).isEqualTo(withoutReset(budget(shownExtensions)));
		}
	}

	@Test
	void theGuidesYamlIsTheReadmes() throws Exception {
		String guide = Files.readString(Path.of("../docs/guide.md"));
		String section = guide.substring(guide.indexOf("## GraphQL budgets"));
		assertThat(properties(blocks(section, "yaml").get(0)))
			.isEqualTo(properties(blocks(Files.readString(Path.of("README.md")), "yaml").get(0)));
	}

	private static Map<String, Object> properties(String yaml) throws Exception {
		Map<String, Object> properties = new java.util.TreeMap<>();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("yaml",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
			Map<?, ?> values = (Map<?, ?>) source.getSource();
			values.forEach((name, value) -> properties.put(name.toString(), value.toString()));
		}
		return properties;
	}

	private static HttpResponse<String> post(int port, String document) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/graphql"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of("query", document.strip()))))
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static List<String> blocks(String readme, String language) {
		List<String> blocks = new ArrayList<>();
		String fence = "```" + language + "\n";
		for (int start = readme.indexOf(fence); start >= 0; start = readme.indexOf(fence, start + 1)) {
			int from = start + fence.length();
			blocks.add(readme.substring(from, readme.indexOf("```", from)));
		}
		return blocks;
	}

	private static Map<String, Object> read(String body) {
		return GraphQlIntegrationTests.map(json.readValue(body, Map.class));
	}

	private static Map<String, Object> budget(Map<String, Object> holder) {
		Object extensions = holder.containsKey("rateLimit") ? holder : holder.get("extensions");
		return GraphQlIntegrationTests.map(GraphQlIntegrationTests.map(extensions).get("rateLimit"));
	}

	private static Map<String, Object> withoutReset(Map<String, Object> budget) {
		Map<String, Object> copy = new java.util.LinkedHashMap<>(budget);
		copy.remove("resetAt");
		return copy;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> errors(Map<String, Object> body) {
		return (List<Map<String, Object>>) body.get("errors");
	}

	private static String waitless(String message) {
		return message.replaceAll("retry after \\d+s", "retry after Ns");
	}

}
