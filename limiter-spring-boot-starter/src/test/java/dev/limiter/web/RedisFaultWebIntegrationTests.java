package dev.limiter.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.FailurePolicy;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterHealthAutoConfiguration;
import dev.limiter.autoconfigure.LimiterMetricsAutoConfiguration;
import dev.limiter.internal.actuate.HealthApi;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.test.RedisServer;

import static dev.limiter.web.WebTests.mvc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Faults of a real, private redis-server process seen through the web layer with the
 * default configuration (50 ms timeout, breaker after 3 failures, open for 500 ms):
 * killed, paused, absent when the application starts.
 */
class RedisFaultWebIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(50);

	/** Scheduling noise allowed on top of the timeout on a shared 2-core machine. */
	private static final Duration MARGIN = Duration.ofMillis(500);

	/** The longest Redis may take to be used again once it is back. */
	private static final Duration RECOVERY = Duration.ofSeconds(3);

	private static final int THREADS = 4;

	private static final int CALLS_PER_THREAD = 25;

	private static final String[] QUOTA_HEADERS = { "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit",
			"X-RateLimit-Remaining", "X-RateLimit-Reset" };

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void killedRedisCountsLocallyByDefaultFailsOpenWithoutHeadersAndClosedWith503ThenRecovers() throws Exception {
		RedisServer redis = server();
		contextRunner(redis.port()).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, "/open").getHeader("RateLimit")).isNotNull();
			redis.kill();
			Load counted = load(mvc, "/counted");
			Load open = load(mvc, "/open");
			Load closed = load(mvc, "/login");
			System.out.printf("killed: local (the default) max %d ms, fail-open max %d ms, fail-closed max %d ms%n",
					counted.maxLatency.toMillis(), open.maxLatency.toMillis(), closed.maxLatency.toMillis());
			// The default counts in memory: admitted with the local quota's headers.
			assertThat(counted.statuses).containsOnly(200).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(counted.responses)
				.allSatisfy((response) -> assertThat(response.getHeader("X-RateLimit-Remaining")).isNotNull());
			assertThat(counted.responses.stream()
				.map((response) -> Long.parseLong(response.getHeader("X-RateLimit-Remaining")))
				.min(Long::compare)
				.orElseThrow()).as("every call counted on this instance")
				.isEqualTo(100_000 - THREADS * CALLS_PER_THREAD);
			assertThat(counted.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			assertThat(open.statuses).containsOnly(200).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(open.responses).allSatisfy((response) -> assertThat(response.getHeaderNames())
				.doesNotContainAnyElementsOf(List.of(QUOTA_HEADERS)));
			assertThat(closed.statuses).containsOnly(503).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(closed.responses).allSatisfy((response) -> {
				assertThat(response.getHeader("Retry-After")).isEqualTo("1");
				assertThat(response.getContentType()).isEqualTo("application/problem+json");
				assertThat(response.getContentAsString()).contains("\"status\":503")
					.contains("the limiter's store is unavailable");
			});
			assertThat(open.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			assertThat(closed.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			Object indicator = context.getBean("limiterHealthIndicator");
			assertThat(HealthApi.status(indicator)).isEqualTo("DOWN");
			assertThat(HealthApi.details(indicator)).containsEntry("store", "redis");
			SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
			assertThat(meters.get(LimiterMetrics.DEGRADED)
				.tags("policy", "fail-open", "result", "allowed")
				.counter()
				.count()).isEqualTo(THREADS * CALLS_PER_THREAD);
			assertThat(meters.get(LimiterMetrics.DEGRADED)
				.tags("policy", "fail-closed", "result", "rejected")
				.counter()
				.count()).isEqualTo(THREADS * CALLS_PER_THREAD);
			assertThat(
					meters.get(LimiterMetrics.DEGRADED).tags("policy", "local", "result", "allowed").counter().count())
				.isEqualTo(THREADS * CALLS_PER_THREAD);
			// Summed over the limits: /counted and /open admit while Redis is down.
			assertThat(meters.get(LimiterMetrics.DECISIONS)
				.tags("result", "allowed", "degraded", "true")
				.counters()
				.stream()
				.mapToDouble(io.micrometer.core.instrument.Counter::count)
				.sum()).isEqualTo(2 * THREADS * CALLS_PER_THREAD);

			redis.restart();
			Duration recovery = awaitRecovery(mvc);
			System.out.printf("killed: limiting resumed %d ms after the restart%n", recovery.toMillis());
			assertThat(recovery).isLessThan(RECOVERY);
			assertThat(HealthApi.status(indicator)).isEqualTo("UP");
			// The restarted server is empty: exact counts again, nothing replayed.
			assertThat(call(mvc, "/few").getStatus()).isEqualTo(200);
			assertThat(call(mvc, "/few").getStatus()).isEqualTo(200);
			MockHttpServletResponse third = call(mvc, "/few");
			assertThat(third.getStatus()).isEqualTo(429);
			assertThat(third.getHeader("X-RateLimit-Remaining")).isEqualTo("0");
			assertThat(redis.command("ZCARD",
					"limiter:{m:dev.limiter.web.RedisFaultWebIntegrationTests$FaultController.few:ip:127.0.0.1}:w60000"))
				.isEqualTo(2L);
		});
	}

	@Test
	void pausedRedisTimesOutWithinTheTimeoutAndRecoversWhenResumed() throws Exception {
		RedisServer redis = server();
		contextRunner(redis.port()).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(call(mvc, "/open").getHeader("RateLimit")).isNotNull();
			redis.pause();
			Load counted;
			Load open;
			Load closed;
			try {
				counted = load(mvc, "/counted");
				open = load(mvc, "/open");
				closed = load(mvc, "/login");
			}
			finally {
				redis.resume();
			}
			System.out.printf("paused: local (the default) max %d ms, fail-open max %d ms, fail-closed max %d ms%n",
					counted.maxLatency.toMillis(), open.maxLatency.toMillis(), closed.maxLatency.toMillis());
			assertThat(counted.statuses).containsOnly(200).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(counted.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			assertThat(open.statuses).containsOnly(200).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(closed.statuses).containsOnly(503).hasSize(THREADS * CALLS_PER_THREAD);
			assertThat(open.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			assertThat(closed.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
			Duration recovery = awaitRecovery(mvc);
			System.out.printf("paused: limiting resumed %d ms after SIGCONT%n", recovery.toMillis());
			assertThat(recovery).isLessThan(RECOVERY);
		});
	}

	@Test
	void redisDownAtStartAppliesThePolicyThenPicksRedisUp() throws Exception {
		RedisServer redis = server();
		redis.kill();
		contextRunner(redis.port()).run((context) -> {
			assertThat(context).hasNotFailed();
			MockMvc mvc = mvc(context);
			MockHttpServletResponse open = call(mvc, "/open");
			assertThat(open.getStatus()).isEqualTo(200);
			assertThat(open.getHeaderNames()).doesNotContainAnyElementsOf(List.of(QUOTA_HEADERS));
			assertThat(call(mvc, "/login").getStatus()).isEqualTo(503);
			// The default policy counts in memory on this instance, with the quota
			// headers.
			MockHttpServletResponse counted = call(mvc, "/counted");
			assertThat(counted.getStatus()).isEqualTo(200);
			assertThat(counted.getHeader("X-RateLimit-Remaining")).isEqualTo("99999");
			// Local: this instance allows the local threshold of 1, then says 429.
			assertThat(call(mvc, "/local").getStatus()).isEqualTo(200);
			MockHttpServletResponse local = call(mvc, "/local");
			assertThat(local.getStatus()).isEqualTo(429);
			assertThat(local.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=1;w=60");
			redis.restart();
			Duration recovery = awaitRecovery(mvc);
			System.out.printf("down at start: limiting began %d ms after Redis appeared%n", recovery.toMillis());
			assertThat(recovery).isLessThan(RECOVERY);
			assertThat(call(mvc, "/login").getStatus()).isEqualTo(200);
			MockHttpServletResponse fromRedis = call(mvc, "/local");
			assertThat(fromRedis.getStatus()).isEqualTo(200);
			assertThat(fromRedis.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=5;w=60");
		});
	}

	private RedisServer server() {
		RedisServer redis = RedisServer.start();
		this.closeables.add(redis);
		return redis;
	}

	private static WebApplicationContextRunner contextRunner(int port) {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class,
					LimiterMetricsAutoConfiguration.class, LimiterHealthAutoConfiguration.class))
			.withUserConfiguration(FaultConfiguration.class)
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port)));
	}

	private static Load load(MockMvc mvc, String path) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Callable<List<Call>>> tasks = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				tasks.add(() -> {
					List<Call> calls = new ArrayList<>();
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						long start = System.nanoTime();
						MockHttpServletResponse response = call(mvc, path);
						calls.add(new Call(response, Duration.ofNanos(System.nanoTime() - start)));
					}
					return calls;
				});
			}
			Load load = new Load();
			for (Future<List<Call>> future : executor.invokeAll(tasks)) {
				for (Call call : future.get()) {
					load.responses.add(call.response);
					load.statuses.add(call.response.getStatus());
					if (call.latency.compareTo(load.maxLatency) > 0) {
						load.maxLatency = call.latency;
					}
				}
			}
			return load;
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Poll until a call is decided by Redis again (it carries quota headers), bounded.
	 */
	private static Duration awaitRecovery(MockMvc mvc) throws Exception {
		long start = System.nanoTime();
		long deadline = start + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (call(mvc, "/open").getHeader("RateLimit") != null) {
				return Duration.ofNanos(System.nanoTime() - start);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
		throw new AssertionError("Limiting did not resume within 10s");
	}

	private static MockHttpServletResponse call(MockMvc mvc, String path) throws Exception {
		return WebTests.call(mvc, get(path).with(WebTests.remoteAddr("127.0.0.1")));
	}

	private record Call(MockHttpServletResponse response, Duration latency) {
	}

	private static final class Load {

		private final List<MockHttpServletResponse> responses = new ArrayList<>();

		private final List<Integer> statuses = new ArrayList<>();

		private Duration maxLatency = Duration.ZERO;

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class FaultConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		FaultController faultController() {
			return new FaultController();
		}

	}

	@RestController
	static class FaultController {

		@RateLimit(threshold = 100_000, failurePolicy = FailurePolicy.FAIL_OPEN)
		@GetMapping("/open")
		public String open() {
			return "open";
		}

		@RateLimit(threshold = 100_000, failurePolicy = FailurePolicy.FAIL_CLOSED)
		@GetMapping("/login")
		public String login() {
			return "login";
		}

		@RateLimit(threshold = 5, failurePolicy = FailurePolicy.LOCAL, localThreshold = 1)
		@GetMapping("/local")
		public String local() {
			return "local";
		}

		@RateLimit(threshold = 100_000)
		@GetMapping("/counted")
		public String counted() {
			return "counted";
		}

		@RateLimit(threshold = 2)
		@GetMapping("/few")
		public String few() {
			return "few";
		}

	}

}
