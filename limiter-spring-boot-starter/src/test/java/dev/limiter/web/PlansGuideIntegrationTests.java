package dev.limiter.web;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;
import dev.limiter.test.DocBlocks;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The guide's "Plans: limits chosen per request": its annotation is this class's
 * handler's, line by line, its YAML is read from the guide, and over HTTP (Spring MVC, a
 * real Redis) a caller who changes plan keeps what they used, as the guide's
 * {@code r=999} and {@code r=98} say.
 */
class PlansGuideIntegrationTests {

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void theGuidesHandlerIsThisOne() throws Exception {
		List<String> shown = DocBlocks.codeLines(
				DocBlocks.block(Path.of("..", "docs", "guide.md"), "### Plans: limits chosen per request", "java"));
		List<String> source = DocBlocks
			.codeLines(DocBlocks.read(Path.of("src/test/java/dev/limiter/web/PlansGuideIntegrationTests.java")));
		assertThat(shown).hasSize(4);
		assertThat(source).containsSubsequence(shown);
	}

	@Test
	void aCallerWhoChangesPlanKeepsWhatTheyUsedAsTheGuideSays() throws Exception {
		assertThat(section()).contains("answers `r=999`; the next under `free`, 100 a minute, answers `r=98`");
		contextRunner().run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/api").param("user", "ann").param("tier", "pro")).getHeader("RateLimit"))
				.startsWith("\"api\";r=999;");
			assertThat(call(mvc, get("/api").param("user", "ann").param("tier", "free")).getHeader("RateLimit"))
				.startsWith("\"api\";r=98;");
		});
	}

	private static String section() throws Exception {
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		return guide.substring(guide.indexOf("### Plans: limits chosen per request"));
	}

	/** The application with the guide's YAML. */
	private static WebApplicationContextRunner contextRunner() throws Exception {
		String section = section();
		int start = section.indexOf("```yaml\n") + 8;
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("guide", new ByteArrayResource(
				section.substring(start, section.indexOf("```", start)).getBytes(StandardCharsets.UTF_8)));
		List<String> properties = new ArrayList<>();
		for (PropertySource<?> source : sources) {
			EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
			for (String name : enumerable.getPropertyNames()) {
				properties.add(name + "=" + enumerable.getProperty(name));
			}
		}
		return WebTests.contextRunner(ApiConfiguration.class).withPropertyValues(properties.toArray(String[]::new));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class ApiConfiguration {

		@Bean
		ApiController apiController() {
			return new ApiController();
		}

	}

	@RestController
	static class ApiController {

		// @formatter:off
		@RateLimit(name = "api", threshold = 100, period = 1, unit = TimeUnit.MINUTES,
				key = "#user", plan = "#tier")   // any SpEL that gives the plan's name, such as @plans.of(#user)
		// @formatter:on
		@GetMapping("/api")
		String api(@RequestParam String user, @RequestParam String tier) {
			return tier;
		}

	}

}
