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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's adaptive limit, its YAML read from the guide as written, over HTTP on a
 * servlet application: a refusal is a 503 that names the learned number and costs no
 * store call, a plan's share is shed first, drops (a 503 answered, a server error thrown)
 * teach the limit while a caller's 400 does not, and bad settings stop the start naming
 * the property.
 */
class AdaptiveGuideIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static ConfigurableApplicationContext application;

	private static String port;

	@BeforeAll
	static void start() throws Exception {
		redis.flushAll();
		application = new SpringApplicationBuilder(SearchApplication.class).web(WebApplicationType.SERVLET)
			.initializers(
					(context) -> guideYamlUnchecked().forEach(context.getEnvironment().getPropertySources()::addFirst))
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "server.tomcat.threads.max=250",
					"management.endpoints.web.exposure.include=ratelimits", "limiter.limits.flaky.algorithm=adaptive",
					"limiter.limits.flaky.threshold=50", "limiter.limits.flaky.adaptive.strategy=aimd",
					"limiter.limits.flaky.adaptive.initial=20")
			.run();
		port = application.getEnvironment().getProperty("local.server.port");
	}

	@AfterAll
	static void stop() {
		Search.gate.countDown();
		application.close();
	}

	private static List<PropertySource<?>> guideYaml() throws Exception {
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		String section = guide.substring(guide.indexOf("## Adaptive limits"));
		int yamlStart = section.indexOf("```yaml") + 7;
		String yaml = section.substring(yamlStart, section.indexOf("```", yamlStart));
		return new YamlPropertySourceLoader().load("guide",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void theGuidesHandlerIsThisOneAndAnAdmittedCallReportsTheLearnedNumber() throws Exception {
		List<String> shown = DocBlocks
			.codeLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Adaptive limits", "java"));
		List<String> source = DocBlocks
			.codeLines(DocBlocks.read(Path.of("src/test/java/dev/limiter/web/AdaptiveGuideIntegrationTests.java")));
		assertThat(shown).hasSize(3);
		assertThat(source).containsSubsequence(shown);
		HttpResponse<String> search = get("/search", "interactive");
		assertThat(search.statusCode()).isEqualTo(200);
		assertThat(search.headers().firstValue("RateLimit-Policy")).as("no window")
			.hasValueSatisfying((policy) -> assertThat(policy).matches("\"backend\";q=\\d+"));
		assertThat(search.headers().firstValue("RateLimit"))
			.hasValueSatisfying((remaining) -> assertThat(remaining).matches("\"backend\";r=\\d+"));
		assertThat(search.headers().firstValue("X-RateLimit-Reset")).isEmpty();
	}

	/**
	 * Calls held at the backend end nothing, so the learned number stands still: batch
	 * fills its 30% of it, interactive calls the rest, and every refusal is a 503 naming
	 * that number, decided without Redis.
	 */
	@Test
	void batchIsShedAtItsShareAndEveryRefusalNamesTheLearnedNumber() {
		Search.holding = true;
		int learned = (int) learned("backend");
		int batchShare = Math.max(1, (int) (learned * 0.3));
		long scriptsBefore = scriptCalls();
		List<CompletableFuture<HttpResponse<String>>> batch = flood("batch", learned);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> done(batch) == learned - batchShare && Search.running.get() == batchShare);
		List<CompletableFuture<HttpResponse<String>>> interactive = flood("interactive", learned);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> done(interactive) == batchShare && Search.running.get() == learned);
		assertThat(learned("backend")).as("nothing ended, nothing learned").isEqualTo(learned);
		assertThat(gauge(LimiterMetrics.CALLS_IN_FLIGHT, "backend")).isEqualTo(learned);
		assertThat(scriptCalls()).as("an adaptive limit asks no store").isEqualTo(scriptsBefore);
		for (List<CompletableFuture<HttpResponse<String>>> answers : List.of(batch, interactive)) {
			assertThat(answers).filteredOn(CompletableFuture::isDone).allSatisfy((answer) -> {
				HttpResponse<String> response = answer.join();
				assertThat(response.statusCode()).isEqualTo(503);
				assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"backend\";q=" + learned);
				assertThat(response.headers().firstValue("RateLimit")).hasValue("\"backend\";r=0;t=1");
				assertThat(response.body()).contains("temporary-reduced-capacity");
			});
		}
		Search.gate.countDown();
		List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>(batch);
		all.addAll(interactive);
		assertThat(all.stream().map(CompletableFuture::join).filter((response) -> response.statusCode() == 200))
			.as("admitted, then served")
			.hasSize(learned);
		assertThat(Search.most.get()).isEqualTo(learned);
	}

	/**
	 * AIMD learns from drops only, each one at once: ×0.9 per 503 answered or server
	 * error thrown, and nothing for a caller's 400.
	 */
	@Test
	void dropsTeachTheLimitAndACallersMistakeDoesNot() throws Exception {
		double expected = 20;
		assertThat(learned("flaky")).isEqualTo(20);
		for (int i = 0; i < 5; i++) {
			assertThat(get("/flaky?status=503", null).statusCode()).isEqualTo(503);
			expected *= 0.9;
			assertThat(learned("flaky")).as("after answered drop %d", i + 1).isEqualTo((int) expected);
		}
		for (int i = 0; i < 3; i++) {
			assertThat(get("/flaky?status=500&thrown=true", null).statusCode()).isEqualTo(500);
			expected *= 0.9;
		}
		assertThat(learned("flaky")).as("after thrown drops").isEqualTo((int) expected);
		for (int i = 0; i < 12; i++) {
			assertThat(get("/flaky?status=400", null).statusCode()).isEqualTo(400);
		}
		assertThat(learned("flaky")).as("a caller's mistake is no drop").isEqualTo((int) expected);
		HttpResponse<String> listed = get("/actuator/ratelimits/flaky?key=anyone", null);
		assertThat(listed.statusCode()).isEqualTo(200);
		assertThat(listed.body()).contains("\"algorithm\":\"adaptive\"", "\"learned\":" + (int) expected,
				"\"strategy\":\"aimd\"", "\"inFlight\":0");
	}

	static Stream<Arguments> badSettings() {
		return Stream.of(Arguments.of("adaptive.min=300", "limiter.limits.backend.adaptive.min"),
				Arguments.of("adaptive.initial=1", "limiter.limits.backend.adaptive.initial"),
				Arguments.of("adaptive.strategy=fastest", "limiter.limits.backend.adaptive.strategy"),
				Arguments.of("plans.batch.share=1.5", "limiter.limits.backend.plans.batch.share"),
				Arguments.of("plans.batch.share=0", "limiter.limits.backend.plans.batch.share"),
				Arguments.of("plans.batch.threshold=10", "limiter.limits.backend.plans.batch.threshold"),
				Arguments.of("period=1m", "limiter.limits.backend.period"),
				Arguments.of("penalty=1h", "limiter.limits.backend.penalty"),
				Arguments.of("local-threshold=5", "limiter.limits.backend.local-threshold"),
				Arguments.of("threshold=99999999999999999999", "limiter.limits.backend.threshold"),
				Arguments.of("adaptive.min=lots", "limiter.limits.backend.adaptive.min"));
	}

	@ParameterizedTest(name = "limiter.limits.backend.{0}")
	@MethodSource("badSettings")
	void badSettingsStopTheStartNamingTheProperty(String setting, String property) {
		assertThat(startFailure("limiter.limits.backend." + setting)).hasStackTraceContaining(property);
	}

	@Test
	void anAdaptiveLimitWithAChargeOrFromAnAnnotationStopsTheStart() {
		assertThat(startFailure("limiter.limits.charged.algorithm=adaptive", "limiter.limits.charged.threshold=10"))
			.hasStackTraceContaining("charge '#result'")
			.hasStackTraceContaining("'charged' (adaptive, up to 10 in flight)");
		assertThat(startFailure("limiter.algorithm=adaptive")).hasStackTraceContaining("limiter.algorithm");
	}

	private static Throwable startFailure(String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port()));
		all.addAll(List.of(properties));
		Class<?> application = (properties[0].startsWith("limiter.limits.charged")) ? ChargedApplication.class
				: GuideApplication.class;
		java.util.Map<String, Object> settings = new java.util.LinkedHashMap<>();
		all.forEach((setting) -> settings.put(setting.substring(0, setting.indexOf('=')),
				setting.substring(setting.indexOf('=') + 1)));
		try {
			new SpringApplicationBuilder(application).web(WebApplicationType.NONE).initializers((context) -> {
				guideYamlUnchecked().forEach(context.getEnvironment().getPropertySources()::addFirst);
				// the setting under test over the guide's own
				context.getEnvironment()
					.getPropertySources()
					.addFirst(new org.springframework.core.env.MapPropertySource("test", settings));
			}).run().close();
		}
		catch (RuntimeException ex) {
			return ex;
		}
		throw new AssertionError("The application started with " + all);
	}

	private static List<PropertySource<?>> guideYamlUnchecked() {
		try {
			return guideYaml();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static double learned(String limit) {
		return gauge(LimiterMetrics.ADAPTIVE_LIMIT, limit);
	}

	private static double gauge(String name, String limit) {
		return application.getBean(MeterRegistry.class).get(name).tag("limit", limit).gauge().value();
	}

	private static long scriptCalls() {
		String stats = String.valueOf(redis.command("INFO", "commandstats"));
		long calls = 0;
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				calls += Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
			}
		}
		return calls;
	}

	private static HttpResponse<String> get(String path, String priority) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
		if (priority != null) {
			request.header("X-Priority", priority);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static long done(List<CompletableFuture<HttpResponse<String>>> answers) {
		return answers.stream().filter(CompletableFuture::isDone).count();
	}

	private static List<CompletableFuture<HttpResponse<String>>> flood(String priority, int calls) {
		List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/search"))
				.header("X-Priority", priority)
				.timeout(Duration.ofSeconds(90))
				.build(), HttpResponse.BodyHandlers.ofString()));
		}
		return answers;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SearchApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Search search() {
			return new Search();
		}

		@Bean
		Flaky flaky() {
			return new Flaky();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class GuideApplication {

		@Bean
		Search search() {
			return new Search();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChargedApplication {

		@Bean
		Charged charged() {
			return new Charged();
		}

	}

	/**
	 * The guide's endpoint; once the test holds calls, each admitted one waits at the
	 * backend until the gate opens.
	 */
	@RestController
	static class Search {

		static final CountDownLatch gate = new CountDownLatch(1);

		static volatile boolean holding;

		static final AtomicInteger running = new AtomicInteger();

		static final AtomicInteger most = new AtomicInteger();

		@RateLimit(name = "backend", plan = "#priority")
		@GetMapping("/search")
		String search(@RequestHeader(name = "X-Priority", defaultValue = "interactive") String priority) {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				if (holding) {
					gate.await();
				}
				return "results";
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

	@RestController
	static class Flaky {

		@RateLimit(name = "flaky")
		@GetMapping("/flaky")
		ResponseEntity<String> flaky(@RequestParam int status, @RequestParam(defaultValue = "false") boolean thrown) {
			if (thrown) {
				throw new ResponseStatusException(HttpStatus.valueOf(status));
			}
			return ResponseEntity.status(status).body("answered " + status);
		}

	}

	@RestController
	static class Charged {

		@RateLimit(name = "charged", charge = "#result")
		@GetMapping("/charged")
		long charged() {
			return 1;
		}

	}

}
