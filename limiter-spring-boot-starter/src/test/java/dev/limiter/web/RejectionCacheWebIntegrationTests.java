package dev.limiter.web;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.propertyeditors.StringTrimmerEditor;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.web.servlet.CachedRejectionInterceptor;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.MutableClock;

import static dev.limiter.web.WebTests.call;
import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static dev.limiter.web.WebTests.remoteAddr;
import static dev.limiter.web.WebTests.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;

/**
 * A caller whom the rejection cache remembers is answered by
 * {@link CachedRejectionInterceptor} before Spring MVC resolves the method's arguments:
 * with the very bytes of the store's rejection, told to the listeners, and with nothing
 * recorded in Redis.
 */
class RejectionCacheWebIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(WebConfiguration.class,
			StoreConfiguration.class);

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void aBlockedCallerIsAnsweredBeforeItsArgumentsAreRead() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			Controller controller = context.getBean(Controller.class);
			CountingStore store = context.getBean(CountingStore.class);
			Decisions decisions = context.getBean(Decisions.class);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(200);
			MockHttpServletResponse fromStore = call(mvc, get("/items").param("page", "1"));
			assertThat(fromStore.getStatus()).isEqualTo(429);
			assertThat(store.calls).hasValue(2);
			// Without its required parameter the call would be a 400: the 429 came first.
			MockHttpServletResponse known = call(mvc, get("/items"));
			assertThat(render(known)).isEqualTo(render(fromStore));
			assertThat(store.calls).as("answered without the store").hasValue(2);
			assertThat(controller.calls()).isEqualTo(1);
			assertThat(decisions.rejections()).isEqualTo(2);
			assertThat(call(mvc, get("/items").with(remoteAddr("10.0.0.2"))).getStatus()).as("another caller")
				.isEqualTo(400);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "limiter.rejection-cache.before-arguments=false", "limiter.web.early-rejection=false" })
	void everyCallIsLeftToTheAspectWhenSwitchedOff(String setting) {
		this.contextRunner.withPropertyValues(setting).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(context).doesNotHaveBean(CachedRejectionInterceptor.class);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/items")).getStatus()).as("arguments first").isEqualTo(400);
		});
	}

	@Test
	void aKeyFromTheArgumentsWaitsForThem() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/pages").param("page", "1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/pages").param("page", "1")).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/pages").param("page", "1")).getStatus()).as("remembered").isEqualTo(429);
			assertThat(call(mvc, get("/pages")).getStatus()).isEqualTo(400);
		});
	}

	@Test
	void aKeyFromTextTheRequestGivesIsReadFromItBeforeTheArguments() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			CountingStore store = context.getBean(CountingStore.class);
			assertThat(call(mvc, get("/search").param("user", "ann").param("page", "1")).getStatus()).isEqualTo(200);
			MockHttpServletResponse fromStore = call(mvc, get("/search").param("user", "ann").param("page", "1"));
			assertThat(fromStore.getStatus()).isEqualTo(429);
			assertThat(store.calls).hasValue(2);
			// Without its required page the call would be a 400: the 429 came first.
			assertThat(render(call(mvc, get("/search").param("user", "ann")))).isEqualTo(render(fromStore));
			assertThat(store.calls).as("answered without the store").hasValue(2);
			assertThat(call(mvc, get("/search").param("user", "bob")).getStatus()).as("another user").isEqualTo(400);
			// A parameter given twice is bound as "ann,ann": left to Spring MVC.
			assertThat(call(mvc, get("/search").param("user", "ann", "ann")).getStatus()).isEqualTo(400);

			// A path variable and a header.
			assertThat(call(mvc, get("/tenants/acme").header("X-Region", "eu").param("page", "1")).getStatus())
				.isEqualTo(200);
			assertThat(call(mvc, get("/tenants/acme").header("X-Region", "eu").param("page", "1")).getStatus())
				.isEqualTo(429);
			assertThat(call(mvc, get("/tenants/acme").header("X-Region", "eu")).getStatus()).isEqualTo(429);
			assertThat(call(mvc, get("/tenants/acme").header("X-Region", "us")).getStatus()).isEqualTo(400);
			assertThat(call(mvc, get("/tenants/acme")).getStatus()).as("no header: left to the call").isEqualTo(400);
		});
	}

	@Test
	void anInitBinderLeavesTheKeyToTheCall() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/bound").param("user", " ann ").param("page", "1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/bound").param("user", " ann ").param("page", "1")).getStatus()).isEqualTo(429);
			// The binder trims the user: the request's text is not the argument.
			assertThat(call(mvc, get("/bound").param("user", " ann ")).getStatus()).isEqualTo(400);
		});
	}

	@Test
	void anAdmittedAsyncCallKeepsItsResultWhenTheCallerIsBlockedMeanwhile() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			MvcResult admitted = mvc.perform(get("/later").with(remoteAddr("10.0.0.3")))
				.andExpect(request().asyncStarted())
				.andReturn();
			assertThat(call(mvc, get("/later").with(remoteAddr("10.0.0.3"))).getStatus()).isEqualTo(429);
			// The async dispatch of the first call passes the interceptor again.
			MockHttpServletResponse result = mvc.perform(asyncDispatch(admitted)).andReturn().getResponse();
			assertThat(result.getStatus()).isEqualTo(200);
			assertThat(result.getContentAsString()).isEqualTo("done");
		});
	}

	@Test
	void adviceAheadOfLimitersKeepsItsTurn() {
		this.contextRunner.withUserConfiguration(FirstAdviceConfiguration.class).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(200);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(429);
			assertThat(context.getBean(CountingStore.class).calls).hasValue(2);
			assertThat(call(mvc, get("/items")).getStatus()).as("left to the call").isEqualTo(400);
			assertThat(call(mvc, get("/items").param("page", "1")).getStatus()).isEqualTo(429);
			assertThat(context.getBean("firstAdvice", AtomicInteger.class)).as("the advice saw every call").hasValue(3);
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration {

		@Bean
		Controller controller() {
			return new Controller();
		}

		@Bean
		Decisions decisions() {
			return new Decisions();
		}

		@Bean
		BinderController binderController() {
			return new BinderController();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FirstAdviceConfiguration {

		@Bean
		AtomicInteger firstAdvice() {
			return new AtomicInteger();
		}

		@Bean
		static DefaultPointcutAdvisor firstAdvisor(AtomicInteger firstAdvice) {
			DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
					new AnnotationMatchingPointcut(null, GetMapping.class), (MethodInterceptor) (call) -> {
						firstAdvice.incrementAndGet();
						return call.proceed();
					});
			advisor.setOrder(Ordered.HIGHEST_PRECEDENCE);
			return advisor;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class StoreConfiguration {

		@Bean
		MutableClock clock() {
			return new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
		}

		@Bean
		CountingStore countingStore(RedisConnectionFactory connectionFactory, MutableClock clock) {
			return new CountingStore(RedisRateLimiter.builder(connectionFactory).clock(clock).build());
		}

		@Bean
		RateLimiter rateLimiter(CountingStore store, MutableClock clock) {
			return RejectionCachingRateLimiter.wrap(store).clock(clock).build();
		}

	}

	@RestController
	static class Controller {

		private final AtomicInteger calls = new AtomicInteger();

		// Through the proxy: the proxy's own fields are not the controller's.
		public int calls() {
			return this.calls.get();
		}

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/items")
		public String items(@RequestParam int page) {
			this.calls.incrementAndGet();
			return "page " + page;
		}

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/later")
		public Callable<String> later() {
			return () -> "done";
		}

		@RateLimit(key = "#user", threshold = 1, period = 30)
		@GetMapping("/search")
		public String search(@RequestParam String user, @RequestParam int page) {
			return user + " " + page;
		}

		@RateLimit(key = "#tenant + ':' + #region", threshold = 1, period = 30)
		@GetMapping("/tenants/{tenant}")
		public String tenant(@PathVariable String tenant, @RequestHeader("X-Region") String region,
				@RequestParam int page) {
			return tenant + " " + region + " " + page;
		}

		@RateLimit(key = "#page", threshold = 1, period = 30)
		@GetMapping("/pages")
		public String pages(@RequestParam int page) {
			return "page " + page;
		}

	}

	@RestController
	static class BinderController {

		@InitBinder
		void trim(WebDataBinder binder) {
			binder.registerCustomEditor(String.class, new StringTrimmerEditor(true));
		}

		@RateLimit(key = "#user", threshold = 1, period = 30)
		@GetMapping("/bound")
		public String bound(@RequestParam String user, @RequestParam int page) {
			return user + " " + page;
		}

	}

	static class Decisions implements RateLimitDecisionListener {

		private final List<Decision> decisions = new CopyOnWriteArrayList<>();

		@Override
		public void onDecision(RateLimitOperation operation, Decision decision) {
			this.decisions.add(decision);
		}

		long rejections() {
			return this.decisions.stream().filter((decision) -> !decision.isAllowed()).count();
		}

	}

	static final class CountingStore extends AbstractRateLimiter {

		final AtomicInteger calls = new AtomicInteger();

		private final RateLimiter redis;

		CountingStore(RateLimiter redis) {
			this.redis = redis;
		}

		@Override
		protected Decision doAcquire(String key, long permits, List<Limit> limits) {
			this.calls.incrementAndGet();
			return this.redis.acquire(key, permits, limits);
		}

	}

}
