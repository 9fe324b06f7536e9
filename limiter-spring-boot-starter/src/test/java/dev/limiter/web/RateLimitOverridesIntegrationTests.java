package dev.limiter.web;

import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.actuate.LimiterEndpointAutoConfiguration;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.annotation.RateLimit;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static dev.limiter.web.WebTests.remoteAddr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Overrides set through the {@code ratelimits} endpoint, on two instances over one real
 * Redis: a named limit's numbers and one caller's, applied on every instance within a
 * second, removed, kept across a restart, and refused whole when a value is bad.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitOverridesIntegrationTests {

	private static final String OTHER_CLIENT = "10.0.0.9";

	private static final SecurityContext OPERATOR = new SecurityContext() {

		@Override
		public Principal getPrincipal() {
			return () -> "operator";
		}

		@Override
		public boolean isUserInRole(String role) {
			return true;
		}

	};

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(OverrideConfiguration.class)
		.withConfiguration(AutoConfigurations.of(LimiterEndpointAutoConfiguration.class))
		.withPropertyValues("limiter.limits.search.threshold=3", "limiter.limits.search.period=1h",
				"limiter.limits.tiers.threshold=2", "limiter.limits.tiers.period=1h",
				"limiter.limits.tiers.plans.pro.threshold=4", "limiter.limits.daily.threshold=3",
				"limiter.limits.daily.calendar=day", "limiter.limits.daily.zone=Europe/Berlin");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void anOverrideSetOnOneInstanceLimitsEveryInstanceWithinASecondUntilItIsRemoved() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			awaitSubscribers(2);
			MockMvc firstMvc = mvc(first);
			MockMvc secondMvc = mvc(second);
			RateLimitsEndpoint endpoint = second.getBean(RateLimitsEndpoint.class);
			WebEndpointResponse<Map<String, Object>> set = endpoint.override("search", null, 5L, null, null, OPERATOR);
			assertThat(set.getStatus()).isEqualTo(200);
			assertThat(set.getBody()).containsEntry("override", Map.of("threshold", 5L))
				.containsEntry("configured", Map.of("threshold", 3L, "period", "1h"))
				.containsEntry("appliesTo", "every instance");
			await().atMost(Duration.ofSeconds(1)).until(() -> threshold(first.getBean(RateLimitsEndpoint.class)) == 5);
			assertThat(statuses(firstMvc, "/search", 3)).containsExactly(200, 200, 200);
			assertThat(statuses(secondMvc, "/search", 3)).as("5 across both instances").containsExactly(200, 200, 429);
			endpoint.override("search", null, null, null, null, OPERATOR);
			await().atMost(Duration.ofSeconds(1)).until(() -> threshold(first.getBean(RateLimitsEndpoint.class)) == 3);
			assertThat(statuses(firstMvc, "/search", 1)).as("5 used, 3 configured").containsExactly(429);
		}));
	}

	@Test
	void aCallersOwnNumbersApplyToThatCallerOnly() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			WebEndpointResponse<Map<String, Object>> set = endpoint.override("search", "ip:" + OTHER_CLIENT, 6L, null,
					null, OPERATOR);
			assertThat(set.getStatus()).isEqualTo(200);
			assertThat(set.getBody()).containsEntry("key", "n:search:ip:" + OTHER_CLIENT);
			assertThat(statuses(mvc, "/search", 4)).containsExactly(200, 200, 200, 429);
			List<Integer> other = new ArrayList<>();
			for (int i = 0; i < 7; i++) {
				other.add(WebTests.call(mvc, get("/search").with(remoteAddr(OTHER_CLIENT))).getStatus());
			}
			assertThat(other).containsExactly(200, 200, 200, 200, 200, 200, 429);
			List<?> usage = (List<?>) endpoint.usage("search", "ip:" + OTHER_CLIENT).getBody().get("limits");
			assertThat(((Map<?, ?>) usage.get(0)).get("threshold")).isEqualTo(6L);
			endpoint.override("search", "ip:" + OTHER_CLIENT, null, null, null, OPERATOR);
			assertThat(WebTests.call(mvc, get("/search").with(remoteAddr(OTHER_CLIENT))).getStatus()).isEqualTo(429);
		});
	}

	@Test
	void aPlanKeepsItsNumbersUnderALimitsOverrideAndTakesItsOwn() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			assertThat(endpoint.override("tiers", null, 1L, null, Map.of("pro", Map.of("threshold", 5)), OPERATOR)
				.getStatus()).isEqualTo(200);
			assertThat(statuses(mvc, "/tiers?tier=free", 2)).containsExactly(200, 429);
			List<Integer> pro = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				pro.add(WebTests.call(mvc, get("/tiers?tier=pro").with(remoteAddr(OTHER_CLIENT))).getStatus());
			}
			assertThat(pro).as("the plan's own override, not the configured 4")
				.containsExactly(200, 200, 200, 200, 200, 429);
		});
	}

	@Test
	void aCalendarLimitTakesAnOverridesThresholdAndKeepsItsCalendar() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			assertThat(endpoint.override("daily", null, 1L, null, null, OPERATOR).getStatus()).isEqualTo(200);
			assertThat(statuses(mvc, "/daily", 2)).containsExactly(200, 429);
			assertThat(WebTests.keys(redis)).anyMatch((key) -> key.endsWith(":cday@Europe/Berlin"));
		});
	}

	@Test
	void anOverrideOutlivesARestart() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RateLimitsEndpoint.class)
			.override("search", null, 1L, "30m", null, OPERATOR)
			.getStatus()).isEqualTo(200));
		this.contextRunner.run((restarted) -> {
			await().atMost(Duration.ofSeconds(1))
				.until(() -> threshold(restarted.getBean(RateLimitsEndpoint.class)) == 1);
			assertThat(describedSearch(restarted.getBean(RateLimitsEndpoint.class))).containsEntry("period", "30m")
				.containsEntry("source", "override");
			assertThat(statuses(mvc(restarted), "/search", 2)).containsExactly(200, 429);
		});
	}

	@Test
	void everyChangeIsLoggedWithWhoMadeItAndTheNumbersBeforeAndAfter(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			endpoint.override("search", null, 5L, "2m", null, OPERATOR);
			endpoint.override("search", null, null, null, null, OPERATOR);
			assertThat(output)
				.contains("Limiter: operator changed the override of limit 'search' from none to "
						+ "threshold 5, period 2m")
				.contains(
						"Limiter: operator changed the override of limit 'search' from threshold 5, period 2m to none");
		});
	}

	@Test
	void withTheInMemoryStoreAnOverrideAppliesToThisInstanceAndTheAnswerSaysSo() {
		this.contextRunner.withPropertyValues("limiter.store=memory").run((context) -> {
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			WebEndpointResponse<Map<String, Object>> set = endpoint.override("search", null, 1L, null, null, OPERATOR);
			assertThat(set.getBody().get("appliesTo").toString()).startsWith("this instance only");
			assertThat(statuses(mvc(context), "/search", 2)).containsExactly(200, 429);
			assertThat(redis.command("EXISTS", "limiter:overrides")).isEqualTo(0L);
		});
	}

	@Test
	void aNamedLimitIsOverriddenByItsScopeToo() {
		this.contextRunner.run((context) -> {
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			WebEndpointResponse<Map<String, Object>> set = endpoint.override("n:search", null, 5L, null, null,
					OPERATOR);
			assertThat(set.getStatus()).as(String.valueOf(set.getBody())).isEqualTo(200);
			assertThat(set.getBody().get("name")).isEqualTo("search");
			endpoint.override("search", null, null, null, null, OPERATOR);
		});
	}

	@Test
	void aBadValueIsRefusedNamingItAndChangesNothing() {
		this.contextRunner.run((context) -> {
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			assertThat(endpoint.override("search", null, 0L, null, null, OPERATOR)).satisfies((answer) -> {
				assertThat(answer.getStatus()).isEqualTo(400);
				assertThat(answer.getBody().get("error").toString())
					.startsWith("threshold: threshold must be between 1");
			});
			assertThat(endpoint.override("search", null, 10L, "soon", null, OPERATOR).getBody().get("error"))
				.isEqualTo("period: 'soon' is not a duration (write it as 1m, 30s, 500ms or PT1M)");
			assertThat(
					endpoint.override("search", null, 10L, "1500us", null, OPERATOR).getBody().get("error").toString())
				.startsWith("period: period must be a whole number of milliseconds");
			assertThat(endpoint.override("tiers", null, null, null, Map.of("gold", Map.of("threshold", 9)), OPERATOR)
				.getBody()
				.get("error")).isEqualTo(
						"plans.gold: limit 'tiers' has no plan 'gold' under limiter.limits.tiers.plans (plans: [pro])");
			assertThat(endpoint.override("daily", null, 10L, "2m", null, OPERATOR).getBody().get("error")).isEqualTo(
					"period: limit 'daily' is counted by the day of a calendar, which a period does not change; set "
							+ "its threshold");
			assertThat(endpoint.override("search", null, null, "60", null, OPERATOR).getBody().get("error"))
				.as("a bare number would be 60 ms")
				.isEqualTo("period: '60' has no unit (write it as 1m, 30s, 500ms or PT1M)");
			for (Object threshold : new Object[] { 1.5, new java.math.BigInteger("99999999999999999999"), "ten" }) {
				assertThat(endpoint
					.override("tiers", null, null, null, Map.of("pro", Map.of("threshold", threshold)), OPERATOR)
					.getBody()
					.get("error")).as(threshold.toString())
					.isEqualTo("plans.pro.threshold: '" + threshold + "' is not a whole number");
			}
			assertThat(endpoint.override("tiers", null, null, null, Map.of("pro", Map.of("period", 60)), OPERATOR)
				.getBody()
				.get("error")).isEqualTo("plans.pro.period: '60' has no unit (write it as 1m, 30s, 500ms or PT1M)");
			assertThat(endpoint.override("nothing", null, 10L, null, null, OPERATOR).getStatus()).isEqualTo(404);
			assertThat(threshold(endpoint)).isEqualTo(3);
			assertThat(redis.command("EXISTS", "limiter:overrides")).isEqualTo(0L);
		});
	}

	private static void awaitSubscribers(int count) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) redis.command("PUBSUB", "NUMSUB", "limiter:overrides")).get(1).toString(),
					(subscribers) -> Integer.parseInt(subscribers) >= count);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> describedSearch(RateLimitsEndpoint endpoint) {
		Map<String, Object> search = (Map<String, Object>) ((Map<String, Object>) endpoint.limits().get("limits"))
			.get("n:search");
		return ((List<Map<String, Object>>) search.get("limits")).get(0);
	}

	private static long threshold(RateLimitsEndpoint endpoint) {
		return (Long) describedSearch(endpoint).get("threshold");
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
	static class OverrideConfiguration {

		@Bean
		OverrideController overrideController() {
			return new OverrideController();
		}

	}

	@RestController
	static class OverrideController {

		@RateLimit(name = "search")
		@GetMapping("/search")
		String search() {
			return "found";
		}

		@RateLimit(name = "daily")
		@GetMapping("/daily")
		String daily() {
			return "today's";
		}

		@RateLimit(name = "tiers", plan = "#tier")
		@GetMapping("/tiers")
		String tiers(@RequestParam String tier) {
			return tier;
		}

	}

}
