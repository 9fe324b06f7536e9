package dev.limiter.gateway.mvc;

import java.io.IOException;
import java.net.InetSocketAddress;
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
import java.util.function.Function;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions;
import org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions;
import org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Two real Spring Cloud Gateway Server MVC gateways on Tomcat route to a local upstream
 * and count on one real Redis: routes from configuration and from the Java DSL, with the
 * starter's headers, 429 and 503 bodies.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayMvcIntegrationTests {

	private static final RedisServer redis = RedisServer.start();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static HttpServer upstream;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() throws IOException {
		// the JDK's server writes an answer's head and body apart: without TCP_NODELAY
		// every answer waits out the client's delayed ACK (40 ms on Linux)
		System.setProperty("sun.net.httpserver.nodelay", "true");
		upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		// many requests at once, each on a thread of its own
		upstream.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
		upstream.createContext("/", (exchange) -> {
			if (exchange.getRequestURI().getPath().startsWith("/slow/")) {
				try {
					// the upstream's own work: a slow answer
					Thread.sleep(2_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			byte[] body = ("upstream " + exchange.getRequestURI()).getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().add("Content-Type", "text/plain");
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		upstream.start();
		first = gateway(routes());
		second = gateway(routes());
	}

	@AfterAll
	static void stop() {
		for (ConfigurableApplicationContext gateway : new ConfigurableApplicationContext[] { first, second }) {
			if (gateway != null) {
				gateway.close();
			}
		}
		if (upstream != null) {
			upstream.stop(0);
		}
		redis.close();
	}

	@Test
	@Order(1)
	void aRouteWithTwoLimitsAdmitsExactlyTheSmallerOneAcrossTwoGateways() {
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			calls.add(http.sendAsync(get((i % 2 == 0) ? first : second, "/orders/" + i, "alice", null),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();
		List<HttpResponse<String>> admitted = responses.stream().filter((r) -> r.statusCode() == 200).toList();
		List<HttpResponse<String>> rejected = responses.stream().filter((r) -> r.statusCode() == 429).toList();
		assertThat(admitted).hasSize(7);
		assertThat(rejected).hasSize(23);
		assertThat(admitted).allSatisfy((response) -> {
			assertThat(response.body()).startsWith("upstream /orders/");
			assertThat(response.headers().firstValue("RateLimit-Policy")).isPresent();
			assertThat(response.headers().firstValue("X-RateLimit-Limit")).isPresent();
		});
		assertThat(rejected).allSatisfy((response) -> {
			long retryAfter = Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow());
			// The window, or a second more: a rejection answered from the rejection cache
			// to a request whose clock reading came before the store's answer counts from
			// that answer, never early (RejectionCachingRateLimiter), and is rounded up.
			assertThat(retryAfter).isBetween(1L, 3601L);
			assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"per-user-hour\";q=7;w=3600");
			assertThat(response.headers().firstValue("RateLimit")).hasValue("\"per-user-hour\";r=0;t=" + retryAfter);
			assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.body()).contains("\"status\":429")
				.contains("\"limit\":\"per-user-hour\"")
				.contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
				.contains("\"instance\":\"/orders/");
		});
		// All or nothing: the rejected calls took nothing from the route's other limit.
		AnnotatedOperation route = operation(first, "route 'orders'");
		assertThat(route.getLimits()).extracting(Limit::name).containsExactly("per-user-hour", "orders");
		List<Usage> usage = first.getBean(RateLimiter.class).usage(route.key("alice"), route.getLimits());
		assertThat(usage).extracting(Usage::used).containsExactly(7L, 7L);
	}

	@Test
	@Order(2)
	void everyCallerHasItsOwnQuotaAndTheDefaultKeyIsTheClientAddress() throws Exception {
		HttpResponse<String> bob = http.send(get(second, "/orders/1", "bob", null),
				HttpResponse.BodyHandlers.ofString());
		assertThat(bob.statusCode()).isEqualTo(200);
		assertThat(bob.headers().firstValue("X-RateLimit-Remaining")).hasValue("6");
		// - Limiter=2,1m: the short form, keyed by the client address
		assertThat(statuses("/short/1", null, null, 3)).containsExactly(200, 200, 429);
		AnnotatedOperation route = operation(first, "route 'short'");
		assertThat(first.getBean(RateLimiter.class).usage(route.key("ip:127.0.0.1"), route.getLimits()))
			.extracting(Usage::used)
			.containsExactly(2L);
	}

	@Test
	@Order(3)
	void aRouteOfTheJavaDslIsLimitedByItsOwnKeyAndAConfiguredRouteUnderItsPlan() throws Exception {
		assertThat(statuses("/dsl/1", "carol", null, 4)).containsExactly(200, 200, 200, 429);
		assertThat(statuses("/dsl/1", "dave", null, 1)).containsExactly(200);
		assertThat(statuses("/tiered/1", "erin", null, 3)).containsExactly(200, 200, 429);
		assertThat(statuses("/tiered/1", "fay", "pro", 5)).containsExactly(200, 200, 200, 200, 429);
	}

	@Test
	@Order(3)
	void aRouteWithMaxWaitServesARequestWhoseTurnComesWithinItInsteadOfRejectingIt() {
		// 1 a second: of two requests at once, the second waits about a second for its
		// turn (max-wait: 3s) instead of being answered 429.
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			calls.add(http.sendAsync(get(first, "/paced/" + i, "hal", null), HttpResponse.BodyHandlers.ofString()));
		}
		assertThat(calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode)).containsExactly(200, 200);
		assertThat(operation(first, "route 'paced'").getMaxWait()).hasSeconds(3);
	}

	@Test
	@Order(3)
	void aRouteInFlightHoldsASlotUntilTheUpstreamsResponseIsWrittenAcrossTwoGateways() {
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			calls.add(http.sendAsync(get((i % 2 == 0) ? first : second, "/slow/" + i, "ida", null),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<Integer> statuses = calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();
		assertThat(statuses).as("2 in flight, the upstream answering in 2 s").containsOnly(200, 429);
		assertThat(statuses.stream().filter((status) -> status == 200)).hasSize(2);
		// every slot is given back once its response is written (the client may read the
		// last byte a moment before the gateway's writeTo returns)
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat((List<?>) redis.command("KEYS", "*:f")).isEmpty());
		assertThat(http.sendAsync(get(second, "/slow/again", "ida", null), HttpResponse.BodyHandlers.ofString())
			.join()
			.statusCode()).isEqualTo(200);
	}

	@Test
	@Order(4)
	void routesAreSeenLikeAnnotatedMethodsInTheMetricsAndTheEndpoint() throws Exception {
		MeterRegistry meters = first.getBean(MeterRegistry.class);
		double before = decisions(meters, "r:dsl", "allowed");
		assertThat(statuses("/dsl/1", "gus", null, 1)).containsExactly(200);
		assertThat(decisions(meters, "r:dsl", "allowed")).isEqualTo(before + 1);
		RateLimitsEndpoint endpoint = first.getBean(RateLimitsEndpoint.class);
		@SuppressWarnings("unchecked")
		Map<String, Object> listed = (Map<String, Object>) endpoint.limits().get("limits");
		assertThat(listed).containsKeys("r:orders", "r:short", "r:dsl", "n:tiered");
		assertThat(listed.get("r:orders")).as("the key of a route keyed by a resolver names it")
			.asString()
			.contains("key=key-resolver userKeyResolver");
		assertThat(listed.get("r:short")).asString().contains("key=default");
		assertThat(endpoint.usage("tiered", "erin").getBody().get("limits")).asString().contains("used=2");
		endpoint.reset("tiered", "erin");
		assertThat(statuses("/tiered/1", "erin", null, 1)).containsExactly(200);
	}

	@Test
	@Order(5)
	void whileRedisIsPausedARouteCountsLocallyByDefaultAFailOpenRouteAdmitsAndAFailClosedRouteAnswers503()
			throws Exception {
		redis.pause();
		try {
			HttpResponse<String> open = http.send(get(first, "/open/1", "hal", null),
					HttpResponse.BodyHandlers.ofString());
			assertThat(open.statusCode()).isEqualTo(200);
			assertThat(open.body()).isEqualTo("upstream /open/1");
			// Nobody knows the quota while Redis is silent: no quota headers.
			assertThat(open.headers().firstValue("RateLimit")).isEmpty();
			HttpResponse<String> closed = http.send(get(first, "/closed/1", "hal", null),
					HttpResponse.BodyHandlers.ofString());
			assertThat(closed.statusCode()).isEqualTo(503);
			assertThat(closed.headers().firstValue("Retry-After")).isPresent();
			assertThat(closed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(closed.body()).contains("\"status\":503").contains("\"limit\":\"closed\"");
			// The default policy counts in this gateway's memory, with the quota's
			// headers.
			HttpResponse<String> counted = http.send(get(first, "/counted/1", "hal", null),
					HttpResponse.BodyHandlers.ofString());
			assertThat(counted.statusCode()).isEqualTo(200);
			assertThat(counted.headers().firstValue("RateLimit")).hasValue("\"counted\";r=99;t=60");
		}
		finally {
			redis.resume();
		}
	}

	/**
	 * The guide's route is a part of the README's configuration, which the README's test
	 * starts: every argument the guide shows, with its value, is one the README's route
	 * has.
	 */
	@Test
	void theGuidesRouteIsPartOfTheReadmesConfiguration() throws Exception {
		List<String> shown = DocBlocks
			.yamlLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "### Gateway Server MVC", "yaml"));
		List<String> configured = DocBlocks
			.yamlLines(DocBlocks.read(Path.of("src/test/resources/readme-gateway-mvc.yml")));
		assertThat(shown).hasSizeGreaterThan(4);
		assertThat(configured).containsAll(shown);
	}

	@Test
	@Order(6)
	void theReadmesConfigurationGivesTheRouteItsLimits() throws Exception {
		String yaml = Files.readString(Path.of("src/test/resources/readme-gateway-mvc.yml"));
		assertThat(Files.readString(Path.of("README.md"))).contains("```yaml\n" + yaml + "```");
		try (ConfigurableApplicationContext gateway = gateway(
				List.of("spring.config.additional-location=classpath:readme-gateway-mvc.yml"))) {
			AnnotatedOperation route = operation(gateway, "route 'orders'");
			assertThat(route.getLimits()).containsExactly(
					Limit.of("per-user-hour", 1000, Duration.ofHours(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED),
					Limit.of("orders", 10, Duration.ofSeconds(1))
						.withAlgorithm(Algorithm.TOKEN_BUCKET)
						.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
			assertThat(route.forPlan("pro").getLimits()).extracting(Limit::threshold).containsExactly(10_000L, 10L);
			assertThat(route.getMaxWait()).isEqualTo(Duration.ofMillis(500));
		}
	}

	@Test
	@Order(6)
	void theReadmesJavaDslRouteIsTheOneThisTestRuns() throws Exception {
		String readme = Files.readString(Path.of("README.md"));
		String section = readme.substring(readme.indexOf("## The Java DSL"));
		String example = section.substring(section.indexOf("```java\n") + 8, section.indexOf("```\n", 8));
		String source = Files
			.readString(Path.of("src/test/java/dev/limiter/gateway/mvc/GatewayMvcIntegrationTests.java"));
		assertThat(stripped(example)).isNotEmpty();
		assertThat(stripped(source)).contains(stripped(example));
	}

	private static String stripped(String code) {
		return String.join("\n", code.lines().map(String::strip).filter((line) -> !line.isEmpty()).toList());
	}

	@Test
	@Order(7)
	void aRouteWhoseArgumentsCannotBeEnforcedStopsTheStart() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> gateway(route(0, "half", "/half/**", "threshold=100")).close())
			.withMessage("route 'half': threshold and period go together, but only threshold is given. Give both, "
					+ "such as threshold: 10 and period: 1m.");
		// A value that does not convert is refused by the gateway's own binding, naming
		// it.
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(() -> gateway(route(0, "slow", "/slow/**", "threshold=100", "period=soon")).close())
			.withMessageContaining("Failed to map soon of type class java.lang.String to period");
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> gateway(route(0, "keyless", "/keyless/**", "threshold=1", "period=1m", "key-resolver=nobody"))
						.close())
			.withMessageStartingWith("route 'keyless': key-resolver 'nobody' names no bean");
		// A wait longer than any request should hold a thread, and one that is no
		// duration.
		assertThatIllegalArgumentException().isThrownBy(
				() -> gateway(route(0, "patient", "/patient/**", "threshold=1", "period=1m", "max-wait=5m")).close())
			.withMessage("route 'patient': max-wait is 300000ms, not a duration between 0 and 60s. Set it to how long "
					+ "a request may wait for its turn, such as max-wait: 500ms, or remove it to reject at once.");
		assertThatExceptionOfType(BeanCreationException.class)
			.isThrownBy(
					() -> gateway(route(0, "eager", "/eager/**", "threshold=1", "period=1m", "max-wait=soon")).close())
			.withMessageContaining("Failed to bind properties under 'max-wait' to java.time.Duration");
	}

	private static List<Integer> statuses(String path, String user, String plan, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(http.send(get(first, path, user, plan), HttpResponse.BodyHandlers.discarding()).statusCode());
		}
		return statuses;
	}

	private static double decisions(MeterRegistry meters, String limit, String result) {
		Counter counter = meters.find("limiter.decisions")
			.tag("limit", limit)
			.tag("result", result)
			.tag("degraded", "false")
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Test
	@Order(8)
	void a429IsByteForByteTheOneOnRecordWithAndWithoutAnAcceptHeader() throws Exception {
		String port = first.getEnvironment().getProperty("local.server.port");
		// Boot 3.5's line writes the gateway's problem chunked (its Jackson 2 converter
		// flushes) and its members in another order; each record is what the gateway's
		// own
		// response wrote on its line.
		String record = org.springframework.util.ClassUtils.isPresent("tools.jackson.databind.ObjectMapper", null)
				? "gateway-mvc-rejection-429.http" : "gateway-mvc-rejection-429-boot35.http";
		String expected = new String(GatewayMvcIntegrationTests.class.getResourceAsStream(record).readAllBytes(),
				StandardCharsets.UTF_8);
		for (String accept : new String[] { null, "*/*", "application/json", "application/problem+json" }) {
			String response;
			int status;
			do {
				response = raw(port, "/short/bytes", accept);
				status = Integer.parseInt(response.substring(9, 12));
			}
			while (status == 200);
			// Kept for a look when the record and the response part.
			Files.writeString(Path.of("target", "gateway-mvc-rejection-429.actual"), response);
			// the date, a chunk's size and the numbers blanked: they move
			assertThat(response.replaceAll("(?m)^Date: [^\\r\\n]*", "Date: #")
				.replaceAll("(?m)^[0-9a-fA-F]+(?=\\r$)", "#")
				.replaceAll("[0-9]+", "#")).as("Accept: " + accept).isEqualTo(expected);
		}
	}

	/** A response as a client reads it off the socket. */
	private static String raw(String port, String path, String accept) throws IOException {
		try (java.net.Socket socket = new java.net.Socket("127.0.0.1", Integer.parseInt(port))) {
			socket.setSoTimeout(30_000);
			java.io.OutputStream out = socket.getOutputStream();
			out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n"
					+ ((accept != null) ? "Accept: " + accept + "\r\n" : "") + "Connection: close\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			java.io.ByteArrayOutputStream response = new java.io.ByteArrayOutputStream();
			socket.getInputStream().transferTo(response);
			return response.toString(StandardCharsets.UTF_8);
		}
	}

	private static AnnotatedOperation operation(ConfigurableApplicationContext gateway, String description) {
		return gateway.getBean(RateLimitOperationSource.class)
			.getOperations()
			.stream()
			.filter((operation) -> operation.getDescription().equals(description))
			.findFirst()
			.orElseThrow();
	}

	private static HttpRequest get(ConfigurableApplicationContext gateway, String path, String user, String plan) {
		String port = gateway.getEnvironment().getProperty("local.server.port");
		// A wedged gateway fails the test instead of hanging the build.
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30));
		if (user != null) {
			request.header("X-User", user);
		}
		if (plan != null) {
			request.header("X-Plan", plan);
		}
		return request.build();
	}

	private static List<String> routes() {
		List<String> properties = new ArrayList<>();
		properties.addAll(route(0, "orders", "/orders/**", "name=per-user-hour", "threshold=10", "period=1m",
				"key-resolver=userKeyResolver"));
		properties.addAll(route(1, "open", "/open/**", "threshold=100", "period=1m", "failure-policy=fail-open"));
		properties.addAll(route(2, "closed", "/closed/**", "threshold=100", "period=1m", "failure-policy=fail-closed"));
		properties.addAll(route(3, "counted", "/counted/**", "threshold=100", "period=1m"));
		properties.addAll(route(4, "tiered", "/tiered/**", "name=tiered", "key-resolver=userKeyResolver",
				"plan-resolver=planResolver"));
		properties.addAll(route(6, "paced", "/paced/**", "threshold=1", "period=1s", "max-wait=3s",
				"key-resolver=userKeyResolver"));
		properties.addAll(route(7, "slow", "/slow/**", "threshold=2", "period=30s", "algorithm=in-flight",
				"key-resolver=userKeyResolver"));
		String route = "spring.cloud.gateway.server.webmvc.routes[5].";
		properties.addAll(List.of(route + "id=short", route + "uri=" + upstreamUri(),
				route + "predicates[0]=Path=/short/**", route + "filters[0]=Limiter=2,1m"));
		return properties;
	}

	private static List<String> route(int index, String id, String path, String... limiterArguments) {
		String route = "spring.cloud.gateway.server.webmvc.routes[" + index + "].";
		String filter = route + "filters[0].";
		List<String> properties = new ArrayList<>(List.of(route + "id=" + id, route + "uri=" + upstreamUri(),
				route + "predicates[0]=Path=" + path, filter + "name=Limiter"));
		for (String argument : limiterArguments) {
			int equals = argument.indexOf('=');
			properties.add(filter + "args[" + argument.substring(0, equals) + "]" + argument.substring(equals));
		}
		return properties;
	}

	private static String upstreamUri() {
		return "http://127.0.0.1:" + upstream.getAddress().getPort();
	}

	private static ConfigurableApplicationContext gateway(List<String> routes) {
		List<String> properties = new ArrayList<>(List.of("server.port=0", "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "limiter.timeout=200ms", "test.upstream=" + upstreamUri(),
				"limiter.limits.per-user-hour.threshold=7", "limiter.limits.per-user-hour.period=1h",
				"limiter.limits.tiered.threshold=2", "limiter.limits.tiered.period=1m",
				"limiter.limits.tiered.plans.pro.threshold=4"));
		properties.addAll(routes);
		return new SpringApplicationBuilder(GatewayApplication.class).web(WebApplicationType.SERVLET)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class GatewayApplication {

		@Bean
		Function<ServerRequest, String> userKeyResolver() {
			return (request) -> request.headers().firstHeader("X-User");
		}

		@Bean
		Function<ServerRequest, String> planResolver() {
			return (request) -> request.headers().firstHeader("X-Plan");
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		// A route of the Java DSL: 3 a minute for each X-User.
		@Bean
		RouterFunction<ServerResponse> dslRoute(Environment environment) {
			LimiterFilterFunctions.Config limits = new LimiterFilterFunctions.Config()
				.key((request) -> request.headers().firstHeader("X-User"));
			limits.setThreshold(3L);
			limits.setPeriod(Duration.ofMinutes(1));
			return GatewayRouterFunctions.route("dsl")
				.GET("/dsl/**", HandlerFunctions.http())
				.before(BeforeFilterFunctions.uri(environment.getProperty("test.upstream")))
				.filter(LimiterFilterFunctions.limiter(limits))
				.build();
		}

	}

}
