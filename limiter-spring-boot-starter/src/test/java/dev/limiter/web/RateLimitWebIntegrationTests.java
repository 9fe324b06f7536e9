package dev.limiter.web;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.StaticMessageSource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;
import dev.limiter.test.MutableClock;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static dev.limiter.web.WebTests.remoteAddr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Web tests of the starter against a real Redis: controllers behind the aspect, the 429
 * handler and the quota headers, through MockMvc.
 */
class RateLimitWebIntegrationTests {

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(WebConfiguration.class);

	private final ObjectMapper objectMapper = new ObjectMapper();

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void callOverTheLimitGets429WithHeadersAndProblem() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			MutableClock clock = context.getBean(MutableClock.class);
			MockHttpServletResponse first = call(mvc, get("/greeting"));
			assertThat(first.getStatus()).isEqualTo(200);
			assertThat(first.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=2;w=30");
			assertThat(first.getHeader("RateLimit")).isEqualTo("\"default\";r=1;t=30");
			assertThat(first.getHeader("X-RateLimit-Limit")).isEqualTo("2");
			assertThat(first.getHeader("X-RateLimit-Remaining")).isEqualTo("1");
			assertThat(first.getHeader("X-RateLimit-Reset")).isEqualTo("30");
			clock.advance(Duration.ofSeconds(13));
			assertThat(call(mvc, get("/greeting")).getHeader("X-RateLimit-Remaining")).isEqualTo("0");
			MockHttpServletResponse rejected = call(mvc, get("/greeting"));
			assertThat(rejected.getStatus()).isEqualTo(429);
			assertThat(rejected.getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			assertThat(rejected.getHeader("Retry-After")).isEqualTo("17");
			assertThat(rejected.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=2;w=30");
			assertThat(rejected.getHeader("RateLimit")).isEqualTo("\"default\";r=0;t=17");
			assertThat(rejected.getHeader("X-RateLimit-Limit")).isEqualTo("2");
			assertThat(rejected.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
			assertThat(rejected.getHeader("X-RateLimit-Reset")).isEqualTo("30");
			assertThat(body(rejected))
				.containsEntry("type", "https://iana.org/assignments/http-problem-types#quota-exceeded")
				.containsEntry("title", "Request cannot be satisfied as assigned quota has been exceeded")
				.containsEntry("violated-policies", java.util.List.of("default"))
				.containsEntry("status", 429)
				.containsEntry("detail", "Rate limit 'default' (2 per 30s) exceeded, retry after 17s")
				.containsEntry("limit", "default")
				.containsEntry("threshold", 2)
				.containsEntry("period", "PT30S")
				.containsEntry("retryAfter", 17)
				.doesNotContainKey("key");
			clock.advance(Duration.ofSeconds(17));
			assertThat(call(mvc, get("/greeting")).getStatus()).isEqualTo(200);
		});
	}

	@Test
	void redisServerClockByDefault() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(ResilientRateLimiter.class);
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/greeting")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/greeting")).getStatus()).isEqualTo(200);
			MockHttpServletResponse rejected = call(mvc, get("/greeting"));
			assertThat(rejected.getStatus()).isEqualTo(429);
			assertThat(Long.parseLong(rejected.getHeader("Retry-After"))).isBetween(1L, 30L);
			assertThat(redis.command("KEYS", "limiter:*")).asList()
				.containsExactly(
						"limiter:{m:dev.limiter.web.RateLimitWebIntegrationTests$GreetingController.greeting:ip:10.0.0.1}:w30000");
		});
	}

	@Test
	void twoUsersDoNotShareAQuota() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			call(mvc, get("/greeting"));
			call(mvc, get("/greeting"));
			assertThat(call(mvc, get("/greeting")).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/greeting").with(remoteAddr("10.0.0.2"))).getStatus()).isEqualTo(200);
			Principal alice = () -> "alice";
			call(mvc, get("/greeting").principal(alice));
			// The principal, not the address, names an authenticated user.
			call(mvc, get("/greeting").principal(alice).with(remoteAddr("10.0.0.3")));
			assertThat(call(mvc, get("/greeting").principal(alice).with(remoteAddr("10.0.0.4"))).getStatus())
				.isEqualTo(429);
			assertThat(call(mvc, get("/greeting").principal(() -> "bob")).getStatus()).isEqualTo(200);
		});
	}

	@Test
	void hostileUserNamesGiveBoundedKeysInOneSlot() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			String hostile = "}{evil}" + "x".repeat(100_000);
			call(mvc, get("/greeting").principal(() -> hostile));
			call(mvc, get("/greeting").principal(() -> "{alice}"));
			List<?> keys = (List<?>) redis.command("KEYS", "*");
			assertThat(keys).hasSize(2).allSatisfy((key) -> {
				String text = key.toString();
				assertThat(text).hasSizeLessThan(300);
				// One opening and one closing brace: the hash tag cannot be moved.
				assertThat(text.chars().filter((c) -> c == '{').count()).isEqualTo(1);
				assertThat(text.chars().filter((c) -> c == '}').count()).isEqualTo(1);
			});
		});
	}

	@Test
	void namedLimitInConfigurationWinsOverTheAnnotation() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class)
			.withPropertyValues("limiter.limits.search.threshold=1", "limiter.limits.search.period=10s")
			.run((context) -> {
				MockMvc mvc = mvc(context);
				assertThat(call(mvc, get("/search")).getHeader("RateLimit-Policy")).isEqualTo("\"search\";q=1;w=10");
				MockHttpServletResponse rejected = call(mvc, get("/search"));
				assertThat(rejected.getStatus()).isEqualTo(429);
				assertThat(rejected.getHeader("Retry-After")).isEqualTo("10");
			});
	}

	@Test
	void classLevelAnnotationLimitsEveryHandler() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/admin/users")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/admin/users")).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/admin/audit")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/admin/audit")).getStatus()).isEqualTo(429);
		});
	}

	@Test
	void spelKeyOverParameters() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/accounts/alice/ping")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/accounts/alice/ping").with(remoteAddr("10.0.0.9"))).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/accounts/bob/ping")).getStatus()).isEqualTo(200);
		});
	}

	@Test
	void twoLimitsOnOneMethodAreAllOrNothing() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			MutableClock clock = context.getBean(MutableClock.class);
			call(mvc, get("/reports"));
			call(mvc, get("/reports"));
			MockHttpServletResponse perSecond = call(mvc, get("/reports"));
			assertThat(perSecond.getStatus()).isEqualTo(429);
			assertThat(perSecond.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=2;w=1");
			clock.advance(Duration.ofSeconds(1));
			// The rejected call consumed nothing under the hourly limit.
			assertThat(call(mvc, get("/reports")).getStatus()).isEqualTo(200);
			MockHttpServletResponse hourly = call(mvc, get("/reports"));
			assertThat(hourly.getStatus()).isEqualTo(429);
			assertThat(hourly.getHeader("RateLimit-Policy")).isEqualTo("\"hourly\";q=3;w=3600");
			assertThat(hourly.getHeader("Retry-After")).isEqualTo("3599");
		});
	}

	@Test
	void routePatternIsTheDefaultSoPathVariablesDoNotBypass() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/orders/1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/orders/2")).getStatus()).isEqualTo(429);
		});
	}

	@Test
	void uriPathStyleKeysEachUri() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class)
			.withPropertyValues("limiter.web.path-style=uri")
			.run((context) -> {
				MockMvc mvc = mvc(context);
				assertThat(call(mvc, get("/orders/1")).getStatus()).isEqualTo(200);
				assertThat(call(mvc, get("/orders/2")).getStatus()).isEqualTo(200);
				assertThat(call(mvc, get("/orders/2")).getStatus()).isEqualTo(429);
			});
	}

	@Test
	void headerStyleNoneKeepsOnlyRetryAfter() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class)
			.withPropertyValues("limiter.web.headers=none")
			.run((context) -> {
				MockMvc mvc = mvc(context);
				MockHttpServletResponse allowed = call(mvc, get("/orders/1"));
				assertThat(allowed.getHeaderNames()).doesNotContain("RateLimit", "X-RateLimit-Limit");
				MockHttpServletResponse rejected = call(mvc, get("/orders/1"));
				assertThat(rejected.getHeaderNames()).contains("Retry-After")
					.doesNotContain("RateLimit", "RateLimit-Policy", "X-RateLimit-Limit");
			});
	}

	@Test
	void legacyHeaderStyle() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class)
			.withPropertyValues("limiter.web.headers=legacy")
			.run((context) -> {
				MockMvc mvc = mvc(context);
				MockHttpServletResponse allowed = call(mvc, get("/orders/1"));
				assertThat(allowed.getHeaderNames()).contains("X-RateLimit-Limit").doesNotContain("RateLimit");
			});
	}

	@Test
	void messageIsLocalized() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class, MessagesConfiguration.class)
			.run((context) -> {
				MockMvc mvc = mvc(context);
				call(mvc, get("/orders/1"));
				MockHttpServletResponse rejected = call(mvc, get("/orders/1").locale(Locale.GERMAN));
				assertThat(body(rejected)).containsEntry("detail", "Zu viele Bestellungen, bitte 60 s warten");
				MockHttpServletResponse english = call(mvc, get("/orders/1").locale(Locale.ENGLISH));
				assertThat(body(english)).containsEntry("detail", "Too many orders, wait 60 s");
			});
	}

	@Test
	void applicationHandlerWins() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class, UserAdviceConfiguration.class)
			.run((context) -> {
				MockMvc mvc = mvc(context);
				call(mvc, get("/orders/1"));
				MockHttpServletResponse rejected = call(mvc, get("/orders/1"));
				assertThat(rejected.getStatus()).isEqualTo(503);
				assertThat(rejected.getContentAsString()).isEqualTo("slow down");
			});
	}

	@Test
	void catchAllHandlerDoesNotHideThe429() {
		this.contextRunner.withUserConfiguration(ClockConfiguration.class, CatchAllAdviceConfiguration.class)
			.run((context) -> {
				MockMvc mvc = mvc(context);
				call(mvc, get("/orders/1"));
				assertThat(call(mvc, get("/orders/1")).getStatus()).isEqualTo(429);
			});
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(MockHttpServletResponse response) throws Exception {
		return this.objectMapper.readValue(response.getContentAsString(), Map.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration {

		@Bean
		GreetingController greetingController() {
			return new GreetingController();
		}

		@Bean
		AdminController adminController() {
			return new AdminController();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClockConfiguration {

		@Bean
		MutableClock clock() {
			return new MutableClock(START);
		}

		@Bean
		RateLimiter rateLimiter(RedisConnectionFactory connectionFactory, MutableClock clock) {
			return RedisRateLimiter.builder(connectionFactory).clock(clock).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MessagesConfiguration {

		@Bean
		MessageSource messageSource() {
			StaticMessageSource messages = new StaticMessageSource();
			messages.addMessage("orders.too-many", Locale.GERMAN, "Zu viele Bestellungen, bitte {3} s warten");
			messages.addMessage("orders.too-many", Locale.ENGLISH, "Too many orders, wait {3} s");
			return messages;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserAdviceConfiguration {

		@Bean
		UserAdvice userAdvice() {
			return new UserAdvice();
		}

	}

	@RestControllerAdvice
	static class UserAdvice {

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> tooMany() {
			return ResponseEntity.status(503).contentType(MediaType.TEXT_PLAIN).body("slow down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CatchAllAdviceConfiguration {

		@Bean
		CatchAllAdvice catchAllAdvice() {
			return new CatchAllAdvice();
		}

	}

	@RestControllerAdvice
	static class CatchAllAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> failure() {
			return ResponseEntity.status(500).contentType(MediaType.TEXT_PLAIN).body("failure");
		}

	}

	@RestController
	static class GreetingController {

		@RateLimit(period = 30, threshold = 2)
		@GetMapping("/greeting")
		public String greeting() {
			return "hello";
		}

		@RateLimit(name = "search", threshold = 100, period = 1, unit = TimeUnit.HOURS)
		@GetMapping("/search")
		public String search() {
			return "found";
		}

		@RateLimit(threshold = 1, key = "#user")
		@GetMapping("/accounts/{user}/ping")
		public String ping(@PathVariable String user) {
			return "pong " + user;
		}

		@RateLimit(threshold = 2, period = 1)
		@RateLimit(name = "hourly", threshold = 3, period = 1, unit = TimeUnit.HOURS)
		@GetMapping("/reports")
		public String reports() {
			return "report";
		}

		@RateLimit(threshold = 1, message = "{orders.too-many}")
		@GetMapping("/orders/{id}")
		public String order(@PathVariable String id) {
			return "order " + id;
		}

	}

	@RestController
	@RateLimit(threshold = 1)
	static class AdminController {

		@GetMapping("/admin/users")
		public String users() {
			return "users";
		}

		@GetMapping("/admin/audit")
		public String audit() {
			return "audit";
		}

	}

}
