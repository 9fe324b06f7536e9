package dev.limiter.web;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.web.servlet.RateLimitExceptionResolver;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.MutableClock;
import dev.limiter.web.HeaderStyle;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static dev.limiter.web.WebTests.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * {@link RateLimitExceptionResolver} writes rejections without Spring MVC's exception
 * handler lookup: the same status, headers in the same order and body bytes as the
 * {@code @ExceptionHandler} path, and it steps aside wherever that path would answer
 * differently.
 */
class RejectionPathWebIntegrationTests {

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(WebConfiguration.class,
			ClockConfiguration.class);

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void directAndHandlerPathsWriteTheSameRejectionInEveryCase() {
		// Every case the resolver answers: each header style, the default message, a
		// message template, a named limit, a path with an extension, and a fail-closed
		// 503.
		for (HeaderStyle style : HeaderStyle.values()) {
			List<String> direct = new ArrayList<>();
			List<String> handler = new ArrayList<>();
			WebApplicationContextRunner runner = this.contextRunner
				.withPropertyValues("limiter.web.headers=" + style.name().toLowerCase(java.util.Locale.ROOT));
			runner.run((context) -> direct.addAll(rejections(mvc(context))));
			redis.flushAll();
			// A ResponseBodyAdvice makes the resolver step aside: the @ExceptionHandler
			// path.
			runner.withUserConfiguration(BodyAdviceConfiguration.class)
				.run((context) -> handler.addAll(rejections(mvc(context))));
			redis.flushAll();
			assertThat(direct).as(style.name()).hasSize(5);
			assertThat(direct.subList(0, 4)).as(style.name())
				.allSatisfy((rejection) -> assertThat(rejection).startsWith("429\n")
					.contains("Content-Type: [application/problem+json]"));
			assertThat(direct.get(1)).contains("Slow down: 30s");
			assertThat(direct.get(2)).contains("\"limit\":\"greetings\"");
			assertThat(direct.get(3)).contains("\"instance\":\"/report.csv\"");
			assertThat(direct.get(4)).startsWith("503\n");
			assertThat(direct).as(style.name()).isEqualTo(handler);
		}
	}

	@Test
	void theResolverAnswersWhenLimitersHandlerWould() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			call(mvc, get("/greeting"));
			MockHttpServletResponse rejected = call(mvc, get("/greeting"));
			assertThat(rejected.getStatus()).isEqualTo(429);
			assertThat(context.getBean(RateLimitExceptionResolver.class)).isNotNull();
		});
	}

	@Test
	void aControllersOwnHandlerWins() {
		this.contextRunner.withUserConfiguration(OwnHandlerConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			call(mvc, get("/own"));
			MockHttpServletResponse rejected = call(mvc, get("/own"));
			assertThat(rejected.getStatus()).isEqualTo(420);
			assertThat(rejected.getContentAsString()).isEqualTo("calm down");
		});
	}

	@Test
	void anAdviceOrderedAheadOfLimitersWins() {
		this.contextRunner.withUserConfiguration(FirstAdviceConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			call(mvc, get("/greeting"));
			MockHttpServletResponse rejected = call(mvc, get("/greeting"));
			assertThat(rejected.getStatus()).isEqualTo(500);
			assertThat(rejected.getContentAsString()).isEqualTo("first");
		});
	}

	@Test
	void aPathEndingInAnExtensionStillGetsTheProblem() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			call(mvc, get("/report.csv"));
			MockHttpServletResponse rejected = call(mvc, get("/report.csv"));
			assertThat(rejected.getStatus()).isEqualTo(429);
			assertThat(rejected.getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			assertThat(rejected.getContentAsString()).contains("\"instance\":\"/report.csv\"");
		});
	}

	/**
	 * The second call of each limited path (429) and a fail-closed call (503), as status,
	 * headers, body.
	 */
	private static List<String> rejections(MockMvc mvc) throws Exception {
		List<String> rejections = new ArrayList<>();
		for (String path : List.of("/greeting", "/templated", "/named", "/report.csv")) {
			call(mvc, get(path));
			rejections.add(render(call(mvc, get(path))));
		}
		rejections.add(render(call(mvc, get("/closed"))));
		return rejections;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration {

		@Bean
		LimitedController limitedController() {
			return new LimitedController();
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
			RateLimiter redisLimiter = RedisRateLimiter.builder(connectionFactory).clock(clock).build();
			// The fail-closed answer of a store that is down, for the /closed limit.
			return new ClosedStoreRateLimiter(redisLimiter);
		}

	}

	@RestController
	static class LimitedController {

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/greeting")
		public String greeting() {
			return "hello";
		}

		@RateLimit(threshold = 1, period = 30, message = "Slow down: {3}s")
		@GetMapping("/templated")
		public String templated() {
			return "hello";
		}

		@RateLimit(name = "greetings", threshold = 1, period = 30)
		@GetMapping("/named")
		public String named() {
			return "hello";
		}

		@RateLimit(name = "closed", threshold = 100, period = 30, failurePolicy = FailurePolicy.FAIL_CLOSED)
		@GetMapping("/closed")
		public String closed() {
			return "never";
		}

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/report.csv")
		public String report() {
			return "a,b";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BodyAdviceConfiguration {

		@Bean
		UnchangedBody unchangedBody() {
			return new UnchangedBody();
		}

	}

	@RestControllerAdvice
	static class UnchangedBody implements ResponseBodyAdvice<Object> {

		@Override
		public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
			return true;
		}

		@Override
		public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
				Class<? extends HttpMessageConverter<?>> selectedConverterType, ServerHttpRequest request,
				ServerHttpResponse response) {
			return body;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnHandlerConfiguration {

		@Bean
		OwnHandlerController ownHandlerController() {
			return new OwnHandlerController();
		}

	}

	@RestController
	static class OwnHandlerController {

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/own")
		public String own() {
			return "ok";
		}

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> tooMany() {
			return ResponseEntity.status(420).contentType(MediaType.TEXT_PLAIN).body("calm down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FirstAdviceConfiguration {

		@Bean
		FirstAdvice firstAdvice() {
			return new FirstAdvice();
		}

	}

	@RestControllerAdvice
	@Order(Ordered.HIGHEST_PRECEDENCE)
	static class FirstAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> failure() {
			return ResponseEntity.status(500).contentType(MediaType.TEXT_PLAIN).body("first");
		}

	}

	/**
	 * Answers the {@code closed} limit as the failure policy does when the store is down:
	 * a fail-closed rejection; every other call goes to Redis.
	 */
	static final class ClosedStoreRateLimiter extends AbstractRateLimiter {

		private final RateLimiter store;

		ClosedStoreRateLimiter(RateLimiter store) {
			this.store = store;
		}

		@Override
		protected Decision doAcquire(String key, long permits, List<Limit> limits) {
			Limit limit = limits.get(0);
			if (limit.name().equals("closed")) {
				return Decisions.decidedBy(Decision.rejected(limit, -1, Duration.ofSeconds(5), Duration.ZERO, 0),
						FailurePolicy.FAIL_CLOSED);
			}
			return this.store.acquire(key, permits, limits);
		}

	}

}
