package dev.limiter.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.Algorithm;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.annotation.RateLimit;
import dev.limiter.actuate.LimiterEndpointAutoConfiguration;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.call.RateLimitOperationSource;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The {@code ratelimits} endpoint over a real Redis: it lists every limit with where its
 * numbers come from, reads one caller's usage and resets it, on every instance.
 */
class RateLimitsEndpointIntegrationTests {

	private static final String CALLER = "ip:" + WebTests.DEFAULT_CLIENT;

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(EndpointConfiguration.class)
		.withConfiguration(AutoConfigurations.of(LimiterEndpointAutoConfiguration.class))
		.withPropertyValues("limiter.limits.search.threshold=3", "limiter.limits.search.period=10s",
				"limiter.limits.plans.plans.pro.threshold=2");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	@SuppressWarnings("unchecked")
	void listsEveryLimitWithWhereItsNumbersComeFrom() {
		this.contextRunner.run((context) -> {
			Map<String, Object> limits = (Map<String, Object>) context.getBean(RateLimitsEndpoint.class)
				.limits()
				.get("limits");
			Map<String, Object> search = (Map<String, Object>) limits.get("n:search");
			assertThat((List<Map<String, Object>>) search.get("limits")).singleElement().satisfies((limit) -> {
				assertThat(limit).containsEntry("threshold", 3L)
					.containsEntry("period", "10s")
					.containsEntry("source", "limiter.limits.search")
					.containsEntry("failurePolicy", "local")
					.containsEntry("shadow", false);
			});
			Map<String, Object> greet = (Map<String, Object>) limits.get(scope(context, "greet"));
			assertThat((List<Map<String, Object>>) greet.get("limits")).singleElement().satisfies((limit) -> {
				assertThat(limit).containsEntry("threshold", 2L)
					.containsEntry("algorithm", "token-bucket")
					.containsEntry("source", "annotation");
			});
			assertThat(greet).containsEntry("key", "default");
		});
	}

	@Test
	void anApplicationStartsWhileRedisIsDownAndSubscribesLater() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(
					org.springframework.boot.autoconfigure.aop.AopAutoConfiguration.class,
					dev.limiter.autoconfigure.LimiterAutoConfiguration.class, LimiterEndpointAutoConfiguration.class))
			.withUserConfiguration(EndpointConfiguration.class)
			.withPropertyValues("limiter.limits.plans.plans.pro.threshold=2")
			.withBean(org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class,
					() -> new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
							new org.springframework.data.redis.connection.RedisStandaloneConfiguration("localhost", 1)))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimitsEndpoint.class));
	}

	@Test
	@SuppressWarnings("unchecked")
	void readsAndResetsOneCallersQuota() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, 3)).containsExactly(200, 200, 429);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			String scope = scope(context, "greet");
			Map<String, Object> usage = endpoint.usage(scope, CALLER).getBody();
			assertThat(usage).containsEntry("key", scope + ":" + CALLER);
			assertThat((List<Map<String, Object>>) usage.get("limits")).singleElement()
				.satisfies((limit) -> assertThat(limit).containsEntry("used", 2L).containsEntry("remaining", 0L));
			assertThat(endpoint.reset(scope, CALLER)).isEqualTo(Map.of("reset", scope + ":" + CALLER));
			assertThat((List<Map<String, Object>>) endpoint.usage(scope, CALLER).getBody().get("limits"))
				.singleElement()
				.satisfies((limit) -> assertThat(limit).containsEntry("used", 0L));
			assertThat(statuses(mvc, 1)).containsExactly(200);
			assertThat(endpoint.usage("m:nothing", CALLER).getStatus()).isEqualTo(404);
			assertThat(endpoint.reset("m:nothing", CALLER)).isInstanceOfSatisfying(WebEndpointResponse.class,
					(response) -> assertThat(response.getStatus()).isEqualTo(404));
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void aResetCoversEveryPlanOfTheMethod() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			for (int i = 0; i < 3; i++) {
				WebTests.call(mvc, get("/planned").param("tier", "pro"));
			}
			assertThat(WebTests.call(mvc, get("/planned").param("tier", "pro")).getStatus()).isEqualTo(429);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			Map<String, Object> plans = (Map<String, Object>) endpoint.usage("n:plans", CALLER).getBody().get("plans");
			assertThat((List<Map<String, Object>>) plans.get("pro")).singleElement()
				.satisfies((limit) -> assertThat(limit).containsEntry("used", 2L).containsEntry("threshold", 2L));
			endpoint.reset("n:plans", CALLER);
			assertThat(WebTests.call(mvc, get("/planned").param("tier", "pro")).getStatus()).isEqualTo(200);
		});
	}

	@Test
	void aResetOnOneInstanceLetsTheCallerBackOnEveryInstance() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			MockMvc firstMvc = mvc(first);
			// The third call is rejected by Redis, the fourth by the first instance's
			// cache.
			assertThat(statuses(firstMvc, 4)).containsExactly(200, 200, 429, 429);
			// Both instances subscribe on threads of their own: wait until both listen.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> ((List<?>) redis.command("PUBSUB", "NUMSUB", "limiter:resets")).get(1).toString(),
						(subscribers) -> Integer.parseInt(subscribers) >= 2);
			second.getBean(RateLimitsEndpoint.class).reset(scope(second, "greet"), CALLER);
			await().atMost(Duration.ofSeconds(5)).until(() -> statuses(firstMvc, 1).get(0) == 200);
		}));
	}

	/**
	 * The instance that resets is exact at once: the rejection it remembered is forgotten
	 * before the reset returns, so the very next call asks Redis. (The others forget it
	 * when Redis's pub/sub delivers the reset, the test above.)
	 */
	@Test
	void theInstanceThatResetsLetsTheCallerBackAtOnce() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, 4)).as("the fourth from the instance's rejection cache")
				.containsExactly(200, 200, 429, 429);
			context.getBean(RateLimitsEndpoint.class).reset(scope(context, "greet"), CALLER);
			assertThat(statuses(mvc, 1)).as("the next call, without waiting for any message").containsExactly(200);
		});
	}

	private static String scope(ApplicationContext context, String methodName) {
		for (RateLimitOperation operation : context.getBean(RateLimitOperationSource.class).getOperations()) {
			if (operation.getMethod().getName().equals(methodName)) {
				return operation.getScope();
			}
		}
		throw new IllegalStateException("No rate-limited method " + methodName);
	}

	private static List<Integer> statuses(MockMvc mvc, int calls) throws Exception {
		List<Integer> statuses = new java.util.ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(WebTests.call(mvc, get("/greet")).getStatus());
		}
		return statuses;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class EndpointConfiguration {

		@Bean
		EndpointController endpointController() {
			return new EndpointController();
		}

	}

	@RestController
	static class EndpointController {

		@RateLimit(threshold = 2, period = 1, unit = java.util.concurrent.TimeUnit.HOURS,
				algorithm = Algorithm.TOKEN_BUCKET)
		@GetMapping("/greet")
		String greet() {
			return "hello";
		}

		@RateLimit(name = "plans", threshold = 1, plan = "#tier")
		@GetMapping("/planned")
		String planned(@org.springframework.web.bind.annotation.RequestParam String tier) {
			return tier;
		}

		@RateLimit(name = "search", threshold = 100)
		@GetMapping("/search")
		String search() {
			return "found";
		}

	}

}
