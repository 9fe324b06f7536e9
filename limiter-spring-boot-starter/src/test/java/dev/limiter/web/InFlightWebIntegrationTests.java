package dev.limiter.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.Algorithm;
import dev.limiter.annotation.RateLimit;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls in flight over HTTP: three instances on one real Redis in front of a backend that
 * counts its own concurrency. A 5-in-flight key never finds more than 5 calls running,
 * whichever instance serves them; the rest are refused at once, or served in turn under
 * {@code maxWait}; a refusal of a limit that protects capacity is a 503.
 */
class InFlightWebIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void start() {
		for (int i = 0; i < 3; i++) {
			instances.add(new SpringApplicationBuilder(ReportsApplication.class).web(WebApplicationType.SERVLET)
				.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
						"spring.data.redis.port=" + redis.port(), "limiter.limits.exports.algorithm=in-flight",
						"limiter.limits.exports.threshold=2", "limiter.limits.exports.period=30s",
						"limiter.limits.exports.protects=capacity")
				.run());
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void reset() {
		redis.flushAll();
		Backend.running.set(0);
		Backend.most.set(0);
	}

	@Test
	void fiftyConcurrentCallsOverThreeInstancesNeverFindMoreThanFiveRunning() {
		List<HttpResponse<String>> responses = concurrently(50, "/report?ms=500");
		long admitted = responses.stream().filter((response) -> response.statusCode() == 200).count();
		List<HttpResponse<String>> refused = responses.stream()
			.filter((response) -> response.statusCode() == 429)
			.toList();
		assertThat(Backend.most.get()).as("most calls running at once").isLessThanOrEqualTo(5);
		assertThat(admitted).isGreaterThanOrEqualTo(5);
		assertThat(admitted + refused.size()).isEqualTo(50);
		assertThat(refused).allSatisfy((response) -> {
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=5");
			assertThat(response.headers().firstValue("RateLimit"))
				.hasValueSatisfying((value) -> assertThat(value).startsWith("\"default\";r=").endsWith(";t=1"));
			assertThat(response.headers().firstValue("X-RateLimit-Reset")).as("no window, no reset").isEmpty();
			assertThat(response.body()).as("the slots' lease, named as such: an in-flight limit has no period")
				.contains("\"lease\":\"PT30S\"")
				.doesNotContain("\"period\"");
		});
		assertThat(keyedMembers("reports")).as("every slot given back").isZero();
	}

	@Test
	void underMaxWaitEveryCallIsServedInTurnNeverMoreThanFiveAtOnce() {
		List<HttpResponse<String>> responses = concurrently(15, "/queued?ms=300");
		assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(200);
		assertThat(Backend.most.get()).isLessThanOrEqualTo(5);
		assertThat(keyedMembers("queued")).isZero();
	}

	@Test
	void aLimitThatProtectsCapacityRefusesWith503AndTheTemporaryReducedCapacityProblem() {
		List<HttpResponse<String>> responses = concurrently(6, "/export?ms=500");
		assertThat(responses).extracting(HttpResponse::statusCode).contains(200).contains(503).doesNotContain(429);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 503).allSatisfy((response) -> {
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.body()).contains("temporary-reduced-capacity").contains("\"limit\":\"exports\"");
		});
		assertThat(Backend.most.get()).isLessThanOrEqualTo(2);
	}

	/** Send calls at once, spread over the instances, and wait for every answer. */
	private static List<HttpResponse<String>> concurrently(int calls, String path) {
		List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			String port = instances.get(i % instances.size()).getEnvironment().getProperty("local.server.port");
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
				.timeout(Duration.ofSeconds(60))
				.build();
			answers.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
		}
		return answers.stream().map(CompletableFuture::join).toList();
	}

	/** The slots held under a shared key, in Redis. */
	private static long keyedMembers(String key) {
		long members = 0;
		for (String redisKey : WebTests.keys(redis)) {
			if (redisKey.contains(key) && redisKey.endsWith(":f")) {
				members += (Long) redis.command("ZCARD", redisKey);
			}
		}
		return members;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ReportsApplication {

		@Bean
		Backend backend() {
			return new Backend();
		}

	}

	/**
	 * A slow backend that counts how many of its calls run at once, on every instance.
	 */
	@RestController
	static class Backend {

		static final AtomicInteger running = new AtomicInteger();

		static final AtomicInteger most = new AtomicInteger();

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 5, period = 30, key = "'reports'")
		@GetMapping("/report")
		String report(@RequestParam long ms) throws InterruptedException {
			return work(ms);
		}

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 5, period = 30, key = "'queued'", maxWait = "20s")
		@GetMapping("/queued")
		String queued(@RequestParam long ms) throws InterruptedException {
			return work(ms);
		}

		@RateLimit(name = "exports", key = "'exports'")
		@GetMapping("/export")
		String export(@RequestParam long ms) throws InterruptedException {
			return work(ms);
		}

		private static String work(long ms) throws InterruptedException {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				// the backend's own work: a slow report
				Thread.sleep(ms);
			}
			finally {
				running.decrementAndGet();
			}
			return "done";
		}

	}

}
