package dev.limiter.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.Algorithm;
import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's "Calls in flight" shedding example, its YAML read from the guide as
 * written, on two instances over one real Redis: under a flood that holds every admitted
 * call, batch calls fill the shared capacity to 40 only, critical ones to 100, and every
 * refusal is a 503 with the temporary-reduced-capacity problem.
 */
class InFlightGuideIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void start() throws Exception {
		redis.flushAll();
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		String section = guide.substring(guide.indexOf("## Calls in flight"));
		int yamlStart = section.indexOf("```yaml") + 7;
		String yaml = section.substring(yamlStart, section.indexOf("```", yamlStart));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("guide",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		for (int i = 0; i < 2; i++) {
			instances.add(new SpringApplicationBuilder(ReportsApplication.class).web(WebApplicationType.SERVLET)
				.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
				.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
						"spring.data.redis.port=" + redis.port(), "server.tomcat.threads.max=250")
				.run());
		}
	}

	@AfterAll
	static void stop() {
		Reports.gate.countDown();
		instances.forEach(ConfigurableApplicationContext::close);
	}

	/**
	 * The guide's first example, five exports at once per user, is the {@code /exports}
	 * handler below, line by line, and answers with its policy over HTTP.
	 */
	@Test
	void theGuidesExportsHandlerIsThisOne() throws Exception {
		List<String> shown = DocBlocks
			.codeLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Calls in flight", "java"));
		List<String> source = DocBlocks
			.codeLines(DocBlocks.read(Path.of("src/test/java/dev/limiter/web/InFlightGuideIntegrationTests.java")));
		assertThat(shown).hasSize(5);
		assertThat(source).containsSubsequence(shown);
		String port = instances.get(0).getEnvironment().getProperty("local.server.port");
		HttpResponse<String> export = http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/exports?user=ann")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(export.statusCode()).isEqualTo(200);
		assertThat(export.headers().firstValue("RateLimit-Policy")).as("5 at once, no window")
			.hasValue("\"default\";q=5");
	}

	@Test
	void batchIsShedAt40WhileCriticalReaches100() {
		List<CompletableFuture<HttpResponse<String>>> batch = flood("batch", 60);
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> done(batch) == 20 && Reports.running.get() == 40);
		List<CompletableFuture<HttpResponse<String>>> critical = flood("critical", 70);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> done(critical) == 10 && Reports.running.get() == 100);
		List<CompletableFuture<HttpResponse<String>>> ordinary = flood("default", 5);
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> done(ordinary) == 5);
		assertThat(Reports.running.get()).as("in flight under the flood").isEqualTo(100);
		// the gauges hold their counts themselves: a collection must not turn them to NaN
		System.gc();
		assertThat(instances.stream()
			.mapToDouble((instance) -> instance.getBean(MeterRegistry.class)
				.get(LimiterMetrics.CALLS_IN_FLIGHT)
				.tag("limit", "reports")
				.gauge()
				.value())
			.sum()).as("the gauges of both instances").isEqualTo(100);
		Map<String, Object> usage = instances.get(0)
			.getBean(RateLimitsEndpoint.class)
			.usage("reports", "reports")
			.getBody();
		assertThat((List<?>) usage.get("limits")).singleElement().satisfies((limit) -> {
			Map<?, ?> row = (Map<?, ?>) limit;
			assertThat(row.get("inFlight")).isEqualTo(100L);
			assertThat(row.get("remaining")).as("under the default plan's 80").isEqualTo(0L);
			assertThat((Long) row.get("leaseEndsAfterMillis")).isPositive().isLessThanOrEqualTo(30_000);
		});
		for (List<CompletableFuture<HttpResponse<String>>> refused : List.of(batch, critical, ordinary)) {
			assertThat(refused).filteredOn(CompletableFuture::isDone).allSatisfy((answer) -> {
				HttpResponse<String> response = answer.join();
				assertThat(response.statusCode()).isEqualTo(503);
				assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(response.body()).contains("temporary-reduced-capacity");
			});
		}
		Reports.gate.countDown();
		List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>(batch);
		all.addAll(critical);
		assertThat(all.stream().map(CompletableFuture::join).filter((response) -> response.statusCode() == 200))
			.as("admitted, then served")
			.hasSize(100);
		assertThat(Reports.most.get()).isEqualTo(100);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> flood("batch", 1).get(0).join().statusCode() == 200);
	}

	private static long done(List<CompletableFuture<HttpResponse<String>>> answers) {
		return answers.stream().filter(CompletableFuture::isDone).count();
	}

	private static List<CompletableFuture<HttpResponse<String>>> flood(String priority, int calls) {
		List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			String port = instances.get(i % instances.size()).getEnvironment().getProperty("local.server.port");
			answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/reports"))
				.header("X-Priority", priority)
				.timeout(Duration.ofSeconds(90))
				.build(), HttpResponse.BodyHandlers.ofString()));
		}
		return answers;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ReportsApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	/**
	 * The guide's endpoint; each admitted call holds its slot until the test opens the
	 * gate.
	 */
	@RestController
	static class Reports {

		static final CountDownLatch gate = new CountDownLatch(1);

		static final AtomicInteger running = new AtomicInteger();

		static final AtomicInteger most = new AtomicInteger();

		// @formatter:off
		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 5, period = 30, key = "#user")  // 5 at once per user
		// @formatter:on
		@GetMapping("/exports")
		Export export(@RequestParam String user) {
			return new Export(user);
		}

		@RateLimit(name = "reports", key = "'reports'", plan = "#priority")
		@GetMapping("/reports")
		String report(@RequestHeader(name = "X-Priority", defaultValue = "default") String priority)
				throws InterruptedException {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				gate.await(60, TimeUnit.SECONDS);
			}
			finally {
				running.decrementAndGet();
			}
			return "report";
		}

	}

	record Export(String user) {
	}

}
