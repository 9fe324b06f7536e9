package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.ForwardedHeaderFilter;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.keys;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * What a client can send to break the limiter or Redis, tried against a real Redis
 * through the whole starter: hostile user names and key values, spoofed proxy headers,
 * key expressions that fail at request time.
 */
@ExtendWith(OutputCaptureExtension.class)
class HostileInputWebIntegrationTests {

	/** Prefix, braces, the bounded caller key (at most 200 characters) and the limit. */
	private static final int MAX_KEY_LENGTH = 300;

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(HostileConfiguration.class)
		// A store error then shows as a 503 instead of passing silently.
		.withPropertyValues("limiter.failure.policy=fail-closed", "limiter.limits.tiers.threshold=5",
				"limiter.limits.tiers.period=1m", "limiter.limits.tiers.plans.pro.threshold=50");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	static Stream<Arguments> hostileNames() {
		return Stream.of(Arguments.of("opening brace", "{alice"), Arguments.of("closing brace", "alice}"),
				Arguments.of("a whole hash tag", "{tag}"), Arguments.of("braces inside out", "}{"),
				Arguments.of("colons", "u:alice:ip:10.0.0.1"), Arguments.of("spaces", "alice smith  "),
				Arguments.of("non-ASCII", "Zoë 名前 🙂"), Arguments.of("10 KB", "x".repeat(10 * 1024)),
				Arguments.of("10 KB of braces", "{}".repeat(5 * 1024)));
	}

	@ParameterizedTest(name = "user name with {0}")
	@MethodSource("hostileNames")
	void hostileUserNameGetsItsOwnBoundedKeyInOneSlot(String description, String name) {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/greeting").principal(() -> name)).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/greeting").principal(() -> name)).getStatus()).isEqualTo(429);
			// The same value as a SpEL key, from the path.
			assertThat(call(mvc, get("/accounts/{user}", name)).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/accounts/{user}", name)).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/greeting").principal(() -> "bob")).getStatus()).as("another user")
				.isEqualTo(200);
			assertBoundedSingleSlotKeys(3);
		});
	}

	@Test
	void hostileUserNamesNeverShareAQuota() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			List<String> names = hostileNames().map((arguments) -> (String) arguments.get()[1]).toList();
			for (String name : names) {
				assertThat(call(mvc, get("/greeting").principal(() -> name)).getStatus()).as(name).isEqualTo(200);
			}
			assertBoundedSingleSlotKeys(names.size());
		});
	}

	@Test
	void forwardedForIsIgnoredByDefault() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/greeting").header("X-Forwarded-For", "1.1.1.1")).getStatus()).isEqualTo(200);
			// A new spoofed address does not give a new quota.
			assertThat(call(mvc, get("/greeting").header("X-Forwarded-For", "2.2.2.2")).getStatus()).isEqualTo(429);
			assertThat(keys(redis)).containsExactly(
					"limiter:{m:dev.limiter.web.HostileInputWebIntegrationTests$HostileController.greeting:ip:10.0.0.1}:w60000");
		});
	}

	@Test
	void forwardedForIsHonouredBehindAProxy() {
		// What server.forward-headers-strategy=framework registers: Spring's own filter.
		this.contextRunner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(new ForwardedHeaderFilter()).build();
			assertThat(call(mvc, get("/greeting").header("X-Forwarded-For", "1.1.1.1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/greeting").header("X-Forwarded-For", "2.2.2.2")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/greeting").header("X-Forwarded-For", "2.2.2.2, 10.9.9.9")).getStatus())
				.isEqualTo(429);
			assertThat(keys(redis)).containsExactlyInAnyOrder(
					"limiter:{m:dev.limiter.web.HostileInputWebIntegrationTests$HostileController.greeting:ip:1.1.1.1}:w60000",
					"limiter:{m:dev.limiter.web.HostileInputWebIntegrationTests$HostileController.greeting:ip:2.2.2.2}:w60000");
		});
	}

	@Test
	void keyThatEvaluatesToNullFallsBackToTheDefaultKey(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/api").header("X-Api-Key", "k1")).getStatus()).isEqualTo(200);
			MockHttpServletResponse missing = call(mvc, get("/api"));
			assertThat(missing.getStatus()).isEqualTo(200);
			// Leaving the header out is no way around the limit: the client is limited as
			// itself.
			MockHttpServletResponse again = call(mvc, get("/api"));
			assertThat(again.getStatus()).isEqualTo(429);
			assertNoStackTrace(again);
			assertThat(keys(redis)).hasSize(2)
				.contains(
						"limiter:{m:dev.limiter.web.HostileInputWebIntegrationTests$HostileController.api:ip:10.0.0.1}:w60000");
		});
		assertThat(output).containsOnlyOnce("Rate-limit key '#request.getHeader('X-Api-Key')' of "
				+ HostileController.class.getName() + ".api() could not be evaluated");
		assertThat(output).contains("evaluated to null); the call is limited under the default key");
	}

	@Test
	void keyThatThrowsFallsBackToTheDefaultKey(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			MockHttpServletResponse first = call(mvc, get("/orders/{id}", "not-a-number"));
			assertThat(first.getStatus()).isEqualTo(200);
			MockHttpServletResponse second = call(mvc, get("/orders/{id}", "still-not-a-number"));
			assertThat(second.getStatus()).isEqualTo(429);
			assertNoStackTrace(second);
			assertThat(call(mvc, get("/orders/{id}", "42")).getStatus()).isEqualTo(200);
		});
		assertThat(output).contains("Rate-limit key 'T(java.lang.Long).parseLong(#id)' of "
				+ HostileController.class.getName() + ".order(String) could not be evaluated");
	}

	/**
	 * Text a caller controls reaches the log only on one line: a newline in a path
	 * variable that a failing key expression quotes, and in a header that names a plan.
	 */
	@Test
	void aNewlineACallerSendsNeverForgesALogLine(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/orders/{id}", "7\nINFO forged key line")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/tiers").header("X-Plan", "gold\nINFO forged plan line")).getStatus())
				.isEqualTo(200);
		});
		assertThat(output).contains("could not be evaluated")
			.contains("7\\u000aINFO forged key line")
			.contains("Plan 'gold\\u000aINFO forged plan line'")
			.doesNotContain("\nINFO forged");
	}

	private static void assertNoStackTrace(MockHttpServletResponse response) throws Exception {
		assertThat(response.getContentAsString()).doesNotContain("Exception")
			.doesNotContain("\tat ")
			.doesNotContain("dev.limiter");
	}

	private static void assertBoundedSingleSlotKeys(int expected) {
		List<String> keys = keys(redis);
		assertThat(keys).hasSize(expected).allSatisfy((key) -> {
			assertThat(key.length()).isLessThan(MAX_KEY_LENGTH);
			// One hash tag that nothing inside can end early: the key's slot is the
			// tag's.
			assertThat(key.chars().filter((c) -> c == '{').count()).isEqualTo(1);
			assertThat(key.chars().filter((c) -> c == '}').count()).isEqualTo(1);
			assertThat(key).startsWith("limiter:{");
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class HostileConfiguration {

		@Bean
		HostileController hostileController() {
			return new HostileController();
		}

	}

	@RestController
	static class HostileController {

		@RateLimit(threshold = 1)
		@GetMapping("/greeting")
		public String greeting() {
			return "hello";
		}

		@RateLimit(threshold = 1, key = "#user")
		@GetMapping("/accounts/{user}")
		public String account(@PathVariable String user) {
			return "account";
		}

		@RateLimit(threshold = 1, key = "#request.getHeader('X-Api-Key')")
		@GetMapping("/api")
		public String api() {
			return "api";
		}

		@RateLimit(name = "tiers", plan = "#request.getHeader('X-Plan')")
		@GetMapping("/tiers")
		public String tiers() {
			return "tiers";
		}

		@RateLimit(threshold = 1, key = "T(java.lang.Long).parseLong(#id)")
		@GetMapping("/orders/{id}")
		public String order(@PathVariable String id) {
			return "order";
		}

	}

}
