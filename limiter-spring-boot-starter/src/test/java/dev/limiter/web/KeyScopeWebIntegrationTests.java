package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.head;

/**
 * A limit belongs to the handler method (or to the name the user shares), never to the
 * spelling of the request, and two limited methods never count on one key.
 */
class KeyScopeWebIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(ScopeConfiguration.class);

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void headAndGetOfOneHandlerShareItsQuota() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/greet"), get("/greet"), head("/greet"), head("/greet"), get("/greet")))
				.containsExactly(200, 200, 429, 429, 429);
			assertThat(context.getBean(Greeter.class).calls()).isEqualTo(2);
		});
	}

	@Test
	void everyPatternOfOneHandlerSharesItsQuota() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/hello"), get("/hi"), get("/hello"))).containsExactly(200, 200, 429);
		});
	}

	@Test
	void aLimitedControllerCallingALimitedServiceCountsEachOnItsOwnKey() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/nested"), get("/nested"), get("/nested"), get("/nested")))
				.containsExactly(200, 200, 200, 429);
		});
	}

	@Test
	void twoLimitedServiceMethodsInOneRequestCountApart() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/both"), get("/both"), get("/both"))).containsExactly(200, 200, 200);
			Service service = context.getBean(Service.class);
			assertThat(service.firstCalls()).isEqualTo(3);
			assertThat(service.secondCalls()).isEqualTo(3);
		});
	}

	@Test
	void methodsThatShareALimitNameShareItsCounter() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/books"), get("/films"), get("/books"))).containsExactly(200, 200, 429);
			assertThat(redis.command("KEYS", "limiter:*")).asList()
				.containsExactly("limiter:{n:catalogue:ip:" + WebTests.DEFAULT_CLIENT + "}:w60000");
		});
	}

	private static List<Integer> statuses(MockMvc mvc, MockHttpServletRequestBuilder... requests) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (MockHttpServletRequestBuilder request : requests) {
			statuses.add(WebTests.call(mvc, request).getStatus());
		}
		return statuses;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class ScopeConfiguration {

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

		@Bean
		Service service() {
			return new Service();
		}

		@Bean
		ScopeController scopeController(Service service) {
			return new ScopeController(service);
		}

	}

	@RestController
	static class Greeter {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@RateLimit(period = 30, threshold = 2)
		@GetMapping("/greet")
		public String greet() {
			this.calls.incrementAndGet();
			return "hello";
		}

		@RateLimit(period = 30, threshold = 2)
		@GetMapping({ "/hello", "/hi" })
		public String hello() {
			return "hello";
		}

	}

	@RestController
	static class ScopeController {

		private final Service service;

		ScopeController(Service service) {
			this.service = service;
		}

		@RateLimit(threshold = 3)
		@GetMapping("/nested")
		public String nested() {
			return this.service.first();
		}

		@GetMapping("/both")
		public String both() {
			return this.service.first() + this.service.second();
		}

		@RateLimit(name = "catalogue", threshold = 2)
		@GetMapping("/books")
		public String books() {
			return "books";
		}

		@RateLimit(name = "catalogue", threshold = 2)
		@GetMapping("/films")
		public String films() {
			return "films";
		}

	}

	static class Service {

		private final AtomicInteger firstCalls = new AtomicInteger();

		private final AtomicInteger secondCalls = new AtomicInteger();

		public int firstCalls() {
			return this.firstCalls.get();
		}

		public int secondCalls() {
			return this.secondCalls.get();
		}

		@RateLimit(threshold = 3)
		public String first() {
			this.firstCalls.incrementAndGet();
			return "first";
		}

		@RateLimit(threshold = 3)
		public String second() {
			this.secondCalls.incrementAndGet();
			return "second";
		}

	}

}
