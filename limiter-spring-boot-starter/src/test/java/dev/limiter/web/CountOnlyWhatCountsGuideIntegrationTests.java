package dev.limiter.web;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
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
 * The guide's "Count only what should count" example: its annotation is this class's
 * handler's, line by line, and over HTTP (Spring MVC, a real Redis) its condition and its
 * refunds do what the guide says.
 */
class CountOnlyWhatCountsGuideIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(ReportsConfiguration.class);

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void theGuidesHandlerIsThisOne() throws Exception {
		List<String> shown = DocBlocks
			.codeLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Count only what should count", "java"));
		List<String> source = DocBlocks.codeLines(
				DocBlocks.read(Path.of("src/test/java/dev/limiter/web/CountOnlyWhatCountsGuideIntegrationTests.java")));
		assertThat(shown).hasSize(5);
		assertThat(source).containsSubsequence(shown);
	}

	@Test
	void internalCallersAreNotCountedAndOurFailuresAreRefunded() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			for (int i = 0; i < 3; i++) {
				assertThat(call(mvc, get("/reports").param("tier", "internal")).getHeader("X-RateLimit-Remaining"))
					.as("an internal call is not limited, not counted, and gets no headers")
					.isNull();
			}
			for (int i = 0; i < 5; i++) {
				assertThat(call(mvc, get("/reports").param("tier", "down")).getStatus()).isEqualTo(503);
			}
			assertThat(call(mvc, get("/reports").param("tier", "gold")).getHeader("X-RateLimit-Remaining"))
				.as("five failed calls refunded, three internal ones never counted")
				.isEqualTo("99");
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class ReportsConfiguration {

		@Bean
		ReportsController reportsController() {
			return new ReportsController();
		}

	}

	@RestController
	static class ReportsController {

		// @formatter:off
		@RateLimit(threshold = 100, period = 1, unit = TimeUnit.MINUTES,
				condition = "#tier != 'internal'",          // internal callers are not limited at all
				refundOn = UpstreamUnavailableException.class) // a client is not charged for our failure
		// @formatter:on
		@GetMapping("/reports")
		Report report(@RequestParam String tier) {
			if (tier.equals("down")) {
				throw new UpstreamUnavailableException();
			}
			return new Report(tier);
		}

	}

	record Report(String tier) {
	}

	/** Our upstream failed: the client is not to blame. */
	@ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
	static class UpstreamUnavailableException extends RuntimeException {

	}

}
