package dev.limiter.benchmarks;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.MockServletContext;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.internal.web.servlet.CachedRejectionInterceptor;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * What Spring MVC's dispatch costs for a 429 next to a 200 of the same kind of endpoint
 * (the sample's {@code /search}: a request parameter in, a small JSON map out), with the
 * starter's auto-configuration and the rejection cache in front of the in-memory store,
 * through MockMvc: no sockets, no Tomcat, no Redis, so the figure is the web layer's own
 * work. Every 429 is answered from the cache, as with Redis.
 * <p>
 * {@code answer=early} is the starter as it is ({@code CachedRejectionInterceptor} throws
 * the remembered rejection before argument resolution, {@code RateLimitExceptionResolver}
 * writes it); {@code answer=resolver} replaces the interceptor with one that does
 * nothing, so the rejection is thrown by the aspect; {@code answer=handler} also adds a
 * no-op {@code ResponseBodyAdvice}, which makes the resolver step aside, so the rejection
 * goes through Spring MVC's {@code @ExceptionHandler} resolution as before either
 * existed.
 * <p>
 * {@code java -jar benchmarks/target/benchmarks.jar RejectionBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RejectionBenchmark {

	@Param({ "early", "resolver", "handler" })
	public String answer;

	private AnnotationConfigWebApplicationContext context;

	private MockMvc mvc;

	private final MockHttpServletRequestBuilder unlimited = MockMvcRequestBuilders.get("/unlimited")
		.param("q", "redis");

	private final MockHttpServletRequestBuilder limited = MockMvcRequestBuilders.get("/limited").param("q", "redis");

	@Setup(Level.Trial)
	public void start() throws Exception {
		this.context = new AnnotationConfigWebApplicationContext();
		this.context.setServletContext(new MockServletContext());
		this.context.register(Web.class);
		if (!this.answer.equals("early")) {
			this.context.register(NoEarlyAnswer.class);
		}
		if (this.answer.equals("handler")) {
			this.context.register(UnchangedBody.class);
		}
		this.context.refresh();
		this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
		// The limit's one call: every later call is a 429.
		check(this.mvc.perform(this.limited).andReturn().getResponse(), 200);
		check(this.mvc.perform(this.limited).andReturn().getResponse(), 429);
		check(this.mvc.perform(this.unlimited).andReturn().getResponse(), 200);
	}

	private static void check(MockHttpServletResponse response, int status) {
		if (response.getStatus() != status) {
			throw new IllegalStateException("Expected " + status + ", got " + response.getStatus());
		}
	}

	@TearDown(Level.Trial)
	public void stop() {
		this.context.close();
	}

	@Benchmark
	public MockHttpServletResponse admittedUnlimited() throws Exception {
		return this.mvc.perform(this.unlimited).andReturn().getResponse();
	}

	@Benchmark
	public MockHttpServletResponse rejected() throws Exception {
		return this.mvc.perform(this.limited).andReturn().getResponse();
	}

	@RestController
	public static class SearchController {

		@GetMapping("/unlimited")
		public Map<String, Object> unlimited(@RequestParam String q) {
			return Map.of("query", q, "results", new String[] { q + " one", q + " two" });
		}

		@RateLimit(name = "search", threshold = 1, period = 3600)
		@GetMapping("/limited")
		public Map<String, Object> limited(@RequestParam String q) {
			return Map.of("query", q, "results", new String[] { q + " one", q + " two" });
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	@EnableAspectJAutoProxy
	@ImportAutoConfiguration(LimiterAutoConfiguration.class)
	static class Web {

		@Bean
		SearchController searchController() {
			return new SearchController();
		}

		@Bean
		RateLimiter rateLimiter() {
			return RejectionCachingRateLimiter.wrap(new InMemoryRateLimiter()).build();
		}

	}

	/** Leaves every rejection to the aspect. */
	@Configuration(proxyBeanMethods = false)
	static class NoEarlyAnswer {

		@Bean
		CachedRejectionInterceptor cachedRejectionInterceptor() {
			return new CachedRejectionInterceptor(() -> null) {

				@Override
				public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
					return true;
				}

			};
		}

	}

	/** Changes nothing, but its presence sends rejections down Spring MVC's own path. */
	@RestControllerAdvice
	static class UnchangedBody implements ResponseBodyAdvice<Object> {

		@Override
		public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
			return false;
		}

		@Override
		public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
				Class<? extends HttpMessageConverter<?>> selectedConverterType, ServerHttpRequest request,
				ServerHttpResponse response) {
			return body;
		}

	}

}
