package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.autoconfigure.LifecycleMvcEndpointAutoConfiguration;
import org.springframework.cloud.context.environment.EnvironmentManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * {@code limiter.limits.*} changed in the Environment while the application runs, through
 * Spring Cloud's own {@link EnvironmentManager} (what {@code POST /actuator/env} and a
 * refresh use), which announces the change: the new numbers apply at once and the count
 * goes on; a bad value is refused with one line naming the property, and the numbers in
 * force stay.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimitsRefreshIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(RefreshConfiguration.class)
		.withConfiguration(AutoConfigurations.of(LifecycleMvcEndpointAutoConfiguration.class))
		.withPropertyValues("limiter.limits.search.threshold=3", "limiter.limits.search.period=1h",
				"limiter.limits.tiers.threshold=1", "limiter.limits.tiers.period=1h",
				"limiter.limits.tiers.plans.pro.threshold=2");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void aRefreshedThresholdAppliesAtOnceAndTheCountGoesOn() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			EnvironmentManager environment = context.getBean(EnvironmentManager.class);
			assertThat(statuses(mvc, "/search", 4)).containsExactly(200, 200, 200, 429);
			environment.setProperty("limiter.limits.search.threshold", "5");
			assertThat(statuses(mvc, "/search", 3)).as("3 used of 5").containsExactly(200, 200, 429);
			environment.setProperty("limiter.limits.search.threshold", "2");
			assertThat(statuses(mvc, "/search", 1)).as("5 used of 2").containsExactly(429);
			environment.setProperty("limiter.limits.tiers.plans.pro.threshold", "4");
			assertThat(statuses(mvc, "/tiers?tier=pro", 5)).containsExactly(200, 200, 200, 200, 429);
		});
	}

	@Test
	void aBadRefreshedValueIsRefusedNamingThePropertyAndTheLimitStays(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			EnvironmentManager environment = context.getBean(EnvironmentManager.class);
			environment.setProperty("limiter.limits.search.threshold", "0");
			assertThat(output)
				.contains("Limiter keeps the limits in force: the refreshed limiter.limits.search.threshold");
			environment.setProperty("limiter.limits.search.threshold", "many");
			assertThat(output).containsPattern("the refreshed limiter.limits(\\.search\\.threshold)? cannot be read");
			assertThat(statuses(mvc, "/search", 4)).as("still 3").containsExactly(200, 200, 200, 429);
		});
	}

	private static List<Integer> statuses(MockMvc mvc, String path, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(WebTests.call(mvc, get(path)).getStatus());
		}
		return statuses;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class RefreshConfiguration {

		@Bean
		RefreshController refreshController() {
			return new RefreshController();
		}

	}

	@RestController
	static class RefreshController {

		@RateLimit(name = "search")
		@GetMapping("/search")
		String search() {
			return "found";
		}

		@RateLimit(name = "tiers", plan = "#tier")
		@GetMapping("/tiers")
		String tiers(@RequestParam String tier) {
			return tier;
		}

	}

}
