package dev.limiter.ai;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.annotation.RateLimit;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimit} on a Spring AI {@code @Tool} method, as the README shows it: a
 * refused tool call reaches the model as the tool's result, an error it can read, and the
 * conversation goes on.
 */
class ToolCallIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void aRefusedToolCallIsAnErrorResultForTheModelAndTheConversationGoesOn() throws Exception {
		redis.flushAll();
		Weather.calls.set(0);
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = new SpringApplicationBuilder(WeatherApplication.class)
					.web(WebApplicationType.NONE)
					.properties("spring.ai.openai.base-url=" + openAi.baseUrl(), "spring.ai.openai.api-key=test",
							"spring.ai.openai.chat.model=gpt-fake", "spring.ai.openai.max-retries=0",
							"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
					.run()) {
			Weather weather = app.getBean(Weather.class);
			ChatClient chat = app.getBean(ChatClient.Builder.class).build();
			assertThat(chat.prompt().user("Weather in Berlin?").tools(weather).call().content())
				.isEqualTo("Hello there");
			assertThat(chat.prompt().user("And now?").tools(weather).call().content()).as("the conversation goes on")
				.isEqualTo("Hello there");
			assertThat(Weather.calls).as("tool calls that ran").hasValue(1);
			assertThat(openAi.toolResults).hasSize(2);
			assertThat(openAi.toolResults.get(0)).contains("Sunny in Berlin");
			assertThat(openAi.toolResults.get(1)).contains("Rate limit").contains("retry after");
		}
	}

	/**
	 * A tool the model calls, once a minute per city; public, as Spring AI calls tools.
	 */
	public static class Weather {

		static final AtomicInteger calls = new AtomicInteger();

		@Tool(description = "The weather in a city")
		@RateLimit(threshold = 1, period = 60, key = "#city")
		public String weather(String city) {
			calls.incrementAndGet();
			return "Sunny in " + city;
		}

	}

	@Test
	void theReadmesToolIsThisOne() throws Exception {
		String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
		String section = readme.substring(readme.indexOf("## Tools the model calls"));
		int start = section.indexOf("```java\n") + 8;
		java.util.List<String> shown = section.substring(start, section.indexOf("```", start))
			.lines()
			.map(String::strip)
			.filter((line) -> line.startsWith("@Tool") || line.startsWith("@RateLimit")
					|| line.startsWith("public String"))
			.map((line) -> line.replace(" { ... }", " {"))
			.toList();
		assertThat(shown).hasSize(3);
		assertThat(java.nio.file.Files
			.readString(java.nio.file.Path.of("src/test/java/dev/limiter/ai/ToolCallIntegrationTests.java"))
			.lines()
			.map(String::strip)
			.toList()).containsSubsequence(shown);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WeatherApplication {

		@Bean
		Weather weather() {
			return new Weather();
		}

	}

}
