package dev.limiter.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's example over HTTP, read from the README as written: its YAML at startup,
 * its endpoint (the test's {@link AssistantController} is the README's, line by line),
 * answered until the day's budget is spent, then a 429 until midnight in Berlin, with no
 * request reaching the model; the guide's YAML says the same.
 */
class ReadmeIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void theReadmesEndpointAnswersUntilTheDaysBudgetIsSpentThenA429UntilMidnightInBerlin() throws Exception {
		redis.flushAll();
		String readme = Files.readString(Path.of("README.md"));
		assertThat(lines(Files.readString(Path.of("src/test/java/dev/limiter/ai/AssistantController.java"))))
			.containsSubsequence(lines(block(readme, "java")));
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = startAsWritten(readme, openAi)) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			HttpResponse<String> response;
			int answered = 0;
			do {
				response = ask(port);
				if (response.statusCode() == 200) {
					assertThat(response.body()).isEqualTo("Hello there");
					answered++;
				}
			}
			while (response.statusCode() == 200 && answered < 1000);
			assertThat(response.statusCode()).isEqualTo(429);
			assertThat(answered).as("calls answered, each reserving the default answer bound and settled to its usage")
				.isGreaterThan(100);
			assertThat(openAi.requests).as("requests that reached the model").hasValue(answered);
			ZonedDateTime now = ZonedDateTime.now(ZoneId.of("Europe/Berlin"));
			long untilMidnight = Duration
				.between(now, LocalDate.now(now.getZone()).plusDays(1).atStartOfDay(now.getZone()))
				.toSeconds();
			assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow()))
				.isBetween(untilMidnight - 5, untilMidnight + 5);
		}
	}

	@Test
	void aCallWhoseAnswerBoundAloneIsMoreThanTheReadmesBudgetIsA400NamingItsNumbersWithoutTheModel() throws Exception {
		redis.flushAll();
		String readme = Files.readString(Path.of("README.md"));
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = startAsWritten(readme, openAi,
						"spring.ai.openai.chat.max-tokens=50000")) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			long scriptCalls = redis.scriptCalls();
			HttpResponse<String> response = ask(port);
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.headers().firstValue("Retry-After")).as("no wait lets it pass").isEmpty();
			assertThat(response.body()).contains("more than the 20000 that limit 'ai-tokens' holds in all")
				.contains("\"cost\":")
				.contains("limiter.ai.max-completion-tokens");
			assertThat(openAi.requests).as("requests that reached the model").hasValue(0);
			assertThat(redis.scriptCalls()).as("script calls").isEqualTo(scriptCalls);
		}
	}

	@Test
	void theReadmesProviderQuotaChargesAnAnswerOverHttpItsUsage() throws Exception {
		redis.flushAll();
		String readme = Files.readString(Path.of("README.md"));
		String section = readme.substring(readme.indexOf("## The provider's quota"));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(block(section, "yaml").getBytes(StandardCharsets.UTF_8)));
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = new SpringApplicationBuilder(AssistantApplication.class)
					.web(WebApplicationType.SERVLET)
					.initializers((context) -> {
						sources.forEach(context.getEnvironment().getPropertySources()::addFirst);
						// the one change: the provider is the fake on the loopback
						// address
						context.getEnvironment()
							.getPropertySources()
							.addFirst(
									new MapPropertySource("fake", Map.of("limiter.clients.openai.hosts", "127.0.0.1")));
					})
					.properties("server.port=0", "server.address=127.0.0.1",
							"spring.ai.openai.base-url=" + openAi.baseUrl(), "spring.ai.openai.api-key=test",
							"spring.ai.openai.chat.model=gpt-fake", "spring.ai.openai.max-retries=0",
							"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
					.run()) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			assertThat(ask(port).statusCode()).as("a first call, which loads the scripts").isEqualTo(200);
			long scriptCalls = redis.scriptCalls();
			HttpResponse<String> response = ask(port);
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("Hello there");
			OutgoingQuotas quotas = app.getBean(OutgoingQuotas.class);
			OutgoingQuota quota = quotas.forHost("127.0.0.1");
			assertThat(quota.limit().threshold()).isEqualTo(500);
			assertThat(quota.tokens().threshold()).isEqualTo(200_000);
			assertThat(redis.scriptCalls() - scriptCalls)
				.as("the tokens reserved, the request's turn, the turn counted from the answer, the tokens settled")
				.isEqualTo(4);
			assertThat(openAi.requests).hasValue(2);
		}
	}

	@Test
	void theGuidesYamlIsTheReadmes() throws Exception {
		String guide = Files.readString(Path.of("../docs/guide.md"));
		String section = guide.substring(guide.indexOf("### Token budgets for Spring AI"));
		assertThat(block(section, "yaml").strip())
			.isEqualTo(block(Files.readString(Path.of("README.md")), "yaml").strip());
	}

	@Test
	void theGuidesProviderQuotaIsTheReadmes() throws Exception {
		String guide = Files.readString(Path.of("../docs/guide.md"));
		String section = guide.substring(guide.indexOf("The provider's own quota"));
		String readme = Files.readString(Path.of("README.md"));
		assertThat(block(section, "yaml").strip())
			.isEqualTo(block(readme.substring(readme.indexOf("## The provider's quota")), "yaml").strip());
	}

	/**
	 * Start the README's application over HTTP, its YAML as written, against the fake
	 * model.
	 */
	private static ConfigurableApplicationContext startAsWritten(String readme, FakeOpenAi openAi, String... properties)
			throws Exception {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(block(readme, "yaml").getBytes(StandardCharsets.UTF_8)));
		return new SpringApplicationBuilder(AssistantApplication.class).web(WebApplicationType.SERVLET)
			.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.properties("server.port=0", "server.address=127.0.0.1", "spring.ai.openai.base-url=" + openAi.baseUrl(),
					"spring.ai.openai.api-key=test", "spring.ai.openai.chat.model=gpt-fake",
					"spring.ai.openai.max-retries=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port())
			.properties(properties)
			.run();
	}

	private static HttpResponse<String> ask(int port) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask"))
			.header("Content-Type", "text/plain")
			.POST(HttpRequest.BodyPublishers.ofString(TokenBudgetIntegrationTests.PROMPT))
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static String block(String text, String language) {
		int start = text.indexOf("```" + language + "\n") + language.length() + 4;
		return text.substring(start, text.indexOf("```", start));
	}

	private static List<String> lines(String code) {
		return code.lines().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(AssistantController.class)
	static class AssistantApplication {

	}

}
