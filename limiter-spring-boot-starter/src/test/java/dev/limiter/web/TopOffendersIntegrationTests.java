package dev.limiter.web;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.actuate.LimiterEndpointAutoConfiguration;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.store.RedisOffenders;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static dev.limiter.web.WebTests.remoteAddr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The callers rejected most under a limit, as {@code GET /actuator/ratelimits/{name}}
 * lists them: after a flood from three callers at different rates, in order, and across
 * two instances on one Redis.
 */
class TopOffendersIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(FloodConfiguration.class)
		.withConfiguration(AutoConfigurations.of(LimiterEndpointAutoConfiguration.class))
		.withPropertyValues("limiter.limits.search.threshold=1", "limiter.limits.search.period=1h");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void aFloodFromThreeCallersNamesThemInOrder() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			flood(mvc, "10.0.0.2", 11);
			flood(mvc, "10.0.0.3", 31);
			flood(mvc, "10.0.0.4", 21);
			assertThat(topRejected(context.getBean(RateLimitsEndpoint.class))).containsExactly(
					Map.of("key", "n:search:ip:10.0.0.3", "rejections", 30L),
					Map.of("key", "n:search:ip:10.0.0.4", "rejections", 20L),
					Map.of("key", "n:search:ip:10.0.0.2", "rejections", 10L));
		});
	}

	@Test
	void theRankingAddsUpEveryInstance() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			flood(mvc(first), "10.0.0.2", 6);
			flood(mvc(first), "10.0.0.3", 3);
			flood(mvc(second), "10.0.0.3", 5);
			first.getBean(RedisOffenders.class).share();
			assertThat(topRejected(second.getBean(RateLimitsEndpoint.class))).containsExactly(
					Map.of("key", "n:search:ip:10.0.0.3", "rejections", 7L),
					Map.of("key", "n:search:ip:10.0.0.2", "rejections", 5L));
		}));
	}

	@Test
	void theCallersOfOneMethodAreNeverListedUnderAnotherWhoseLimitsAreAlsoUnnamed() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			flood(mvc, "/export", "10.0.0.5", 4);
			flood(mvc, "/report", "10.0.0.6", 3);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			assertThat(unnamedTopRejected(endpoint, "export")).singleElement()
				.satisfies((offender) -> assertThat(offender.get("key").toString()).endsWith("ip:10.0.0.5"));
			assertThat(unnamedTopRejected(endpoint, "report")).singleElement()
				.satisfies((offender) -> assertThat(offender.get("key").toString()).endsWith("ip:10.0.0.6"));
		});
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> unnamedTopRejected(RateLimitsEndpoint endpoint, String method) {
		String scope = ((Map<String, Object>) endpoint.limits().get("limits")).keySet()
			.stream()
			.filter((listed) -> listed.endsWith("." + method))
			.findFirst()
			.orElseThrow();
		Map<String, Object> described = endpoint.usage(scope, null).getBody();
		return (List<Map<String, Object>>) ((Map<String, Object>) described.get("topRejected")).get("default");
	}

	private static void flood(MockMvc mvc, String client, int calls) throws Exception {
		flood(mvc, "/search", client, calls);
	}

	private static void flood(MockMvc mvc, String path, String client, int calls) throws Exception {
		for (int i = 0; i < calls; i++) {
			WebTests.call(mvc, get(path).with(remoteAddr(client)));
		}
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> topRejected(RateLimitsEndpoint endpoint) {
		return (List<Map<String, Object>>) ((Map<String, Object>) endpoint.usage("search", null)
			.getBody()
			.get("topRejected")).get("search");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class FloodConfiguration {

		@Bean
		FloodController floodController() {
			return new FloodController();
		}

	}

	@RestController
	static class FloodController {

		@RateLimit(name = "search")
		@GetMapping("/search")
		String search() {
			return "found";
		}

		@RateLimit(threshold = 1, period = 3600)
		@GetMapping("/export")
		String export() {
			return "exported";
		}

		@RateLimit(threshold = 1, period = 3600)
		@GetMapping("/report")
		String report() {
			return "reported";
		}

	}

}
