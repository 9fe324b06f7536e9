package dev.limiter.web;

import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Other spellings of a request for the same route never give a caller a fresh quota:
 * encoded slashes and dots, {@code ..;}, matrix parameters, trailing slashes, upper case,
 * double slashes. Each either reaches the limited handler and counts on its quota, or
 * does not reach it at all.
 */
class RequestSpellingWebIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(FilesConfiguration.class);

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@ParameterizedTest
	@ValueSource(strings = { "/files/report", "/files/report/", "/files/report;v=1", "/files;x=y/report",
			"/files/%72eport", "/files/report%2F", "/files/.%2Freport", "/files/..;/files/report", "/FILES/report",
			"//files//report", "/files/./report" })
	void noSpellingGetsAFreshQuota(String spelling) {
		for (String style : List.of("pattern", "uri")) {
			this.contextRunner.withPropertyValues("limiter.web.path-style=" + style).run((context) -> {
				redis.flushAll();
				MockMvc mvc = mvc(context);
				assertThat(call(mvc, get("/files/report")).getStatus()).isEqualTo(200);
				assertThat(call(mvc, get("/files/report")).getStatus()).isEqualTo(200);
				int status = call(mvc, get(URI.create(spelling))).getStatus();
				assertThat(status).as("%s with path-style=%s", spelling, style).isNotEqualTo(200);
				assertThat(context.getBean(FilesController.class).served())
					.as("the handler ran only for the two admitted calls")
					.isEqualTo(2);
			});
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class FilesConfiguration {

		@Bean
		FilesController filesController() {
			return new FilesController();
		}

	}

	@RestController
	static class FilesController {

		private final AtomicInteger served = new AtomicInteger();

		public int served() {
			return this.served.get();
		}

		@RateLimit(threshold = 2)
		@GetMapping("/files/{name}")
		public String file(@PathVariable String name) {
			this.served.incrementAndGet();
			return name;
		}

	}

}
