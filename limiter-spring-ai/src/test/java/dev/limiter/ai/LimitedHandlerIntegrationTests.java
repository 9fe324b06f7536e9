package dev.limiter.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chat call inside an HTTP handler that has its own {@code @RateLimit}, over HTTP: an
 * answered call reports the handler's quota (the first limited call of the request), not
 * the token budget's; a call the budget refuses is a 429 that reports the budget, the
 * limit that refused it, and never reaches the model.
 */
class LimitedHandlerIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void theHandlersQuotaIsReportedUntilTheBudgetRefusesWithItsOwn() throws Exception {
		redis.flushAll();
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = new SpringApplicationBuilder(LimitedApplication.class)
					.web(WebApplicationType.SERVLET)
					.properties("server.port=0", "server.address=127.0.0.1",
							"spring.ai.openai.base-url=" + openAi.baseUrl(), "spring.ai.openai.api-key=test",
							"spring.ai.openai.chat.model=gpt-fake", "spring.ai.openai.chat.max-tokens=100",
							"spring.ai.openai.max-retries=0", "spring.data.redis.host=" + redis.host(),
							"spring.data.redis.port=" + redis.port(), "limiter.limits.ai-tokens.threshold=140",
							"limiter.limits.ai-tokens.period=1d", "limiter.limits.ai-tokens.algorithm=sliding-buckets",
							"limiter.ai.limit=ai-tokens")
					.run()) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			// the first call reserves its prompt and 100 tokens of answer, and settles 42
			HttpResponse<String> answered = ask(port);
			assertThat(answered.statusCode()).isEqualTo(200);
			assertThat(answered.body()).isEqualTo("Hello there");
			assertThat(answered.headers().firstValue("X-RateLimit-Limit")).as("the handler's quota").hasValue("3");
			assertThat(answered.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
			assertThat(answered.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=3;w=60");
			// the second reservation no longer fits the 140 tokens: the budget refuses
			HttpResponse<String> refused = ask(port);
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit-Policy")).as("the limit that refused")
				.hasValueSatisfying((policy) -> assertThat(policy).startsWith("\"ai-tokens\";q=140"));
			assertThat(refused.headers().firstValue("X-RateLimit-Limit")).hasValue("140");
			assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isPositive();
			assertThat(openAi.requests).as("requests that reached the model").hasValue(1);
		}
	}

	private static HttpResponse<String> ask(int port) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask-limited"))
				.header("Content-Type", "text/plain")
				.POST(HttpRequest.BodyPublishers.ofString(TokenBudgetIntegrationTests.PROMPT))
				.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(LimitedAssistant.class)
	static class LimitedApplication {

	}

	/** A chat endpoint with a limit of its own: 3 calls a minute per caller. */
	@RestController
	static class LimitedAssistant {

		private final ChatClient chat;

		LimitedAssistant(ChatClient.Builder builder) {
			this.chat = builder.build();
		}

		@RateLimit(threshold = 3, period = 60)
		@PostMapping("/ask-limited")
		String ask(@RequestBody String question) {
			return this.chat.prompt().user(question).call().content();
		}

	}

}
