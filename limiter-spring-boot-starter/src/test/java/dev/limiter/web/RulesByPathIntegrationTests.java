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
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import reactor.core.publisher.Mono;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.annotation.RateLimit;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's rules by path ({@code limiter.web.rules}), its YAML read from the guide as
 * written, over HTTP on two instances of each web stack over one real Redis: exact across
 * instances, excluded paths, methods and conditions never counted, all or nothing with a
 * handler's own {@code @RateLimit}, replaced by a refresh, and a rule's promise kept
 * under hostile spellings of a path.
 */
class RulesByPathIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final Map<Stack, List<ConfigurableApplicationContext>> instances = new EnumMap<>(Stack.class);

	enum Stack {

		MVC(WebApplicationType.SERVLET), WEBFLUX(WebApplicationType.REACTIVE);

		private final WebApplicationType type;

		Stack(WebApplicationType type) {
			this.type = type;
		}

	}

	@BeforeAll
	static void start() throws Exception {
		redis.flushAll();
		String yaml = DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Limits by path, without code", "yaml");
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("guide",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		for (Stack stack : Stack.values()) {
			List<ConfigurableApplicationContext> started = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				started.add(new SpringApplicationBuilder(RulesApplication.class).web(stack.type)
					.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
					.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
							"spring.data.redis.port=" + redis.port(),
							"limiter.key-prefix=" + stack.name().toLowerCase() + ":",
							"management.endpoints.web.exposure.include=ratelimits",
							"management.endpoint.ratelimits.access=unrestricted")
					.run());
			}
			instances.put(stack, started);
		}
	}

	@AfterAll
	static void stop() {
		instances.values().forEach((started) -> started.forEach(ConfigurableApplicationContext::close));
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void theGuidesRuleAdmitsExactlyItsBurstAcrossTwoInstances(Stack stack) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		HttpResponse<String> refused = null;
		for (int i = 0; i < 12; i++) {
			HttpResponse<String> response = send(stack, i % 2, "GET", "/api/items", "exact");
			statuses.add(response.statusCode());
			if (response.statusCode() == 429 && refused == null) {
				refused = response;
			}
		}
		assertThat(statuses.stream().filter((status) -> status == 200)).as("api-burst: 5 per 10 s").hasSize(5);
		assertThat(statuses.subList(5, 12)).containsOnly(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((policy) -> assertThat(policy).contains("\"api-burst\";q=5;w=10"));
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.body()).contains("\"status\":429").contains("api-burst");
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void excludedPathsOtherMethodsInternalCallsAndOtherPathsAreNeverCounted(Stack stack) throws Exception {
		for (int i = 0; i < 8; i++) {
			assertThat(send(stack, i % 2, "GET", "/api/health", "spared").statusCode()).isEqualTo(200);
			assertThat(send(stack, i % 2, "DELETE", "/api/items", "spared").statusCode()).isEqualTo(200);
			assertThat(send(stack, i % 2, "GET", "/public", "spared").statusCode()).isEqualTo(200);
			HttpResponse<String> internal = http.send(
					request(stack, i % 2, "GET", "/api/items", "spared").header("X-Internal", "yes").build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(internal.statusCode()).isEqualTo(200);
			assertThat(internal.headers().firstValue("RateLimit")).as("not limited by the rule").isEmpty();
		}
		assertThat(statuses(stack, "/api/items", "spared", 6)).as("the quota is whole")
			.containsExactly(200, 200, 200, 200, 200, 429);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aRuleAndTheHandlersOwnLimitAreAllOrNothing(Stack stack) throws Exception {
		// the handler's own limit, 2 a minute, refuses the third call: the rule gives it
		// back
		assertThat(statuses(stack, "/api/annotated", "both", 3)).containsExactly(200, 200, 429);
		RateLimitsEndpoint endpoint = instances.get(stack).get(0).getBean(RateLimitsEndpoint.class);
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(endpoint.usage("api-burst", "both").getBody().get("limits")).asString()
				.contains("name=api-burst, threshold=5, period=10s, used=2"));
		assertThat(statuses(stack, "/api/items", "both", 4)).as("3 left of 5").containsExactly(200, 200, 200, 429);
		// the rule refuses: the handler runs not, and its own limit, once a minute, is
		// not
		// counted
		assertThat(statuses(stack, "/api/once", "both", 1)).containsExactly(429);
		assertThat(statuses(stack, "/api/once", "other", 1)).as("the handler's limit is whole").containsExactly(200);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aRulesPromiseHoldsUnderHostileSpellingsOfAPath(Stack stack) throws Exception {
		String[] spellings = { "/api/items/", "/api//items", "/api/items;x=1", "/api;x=1/items", "/api/./items",
				"/api/../api/items", "/api/%69tems", "/api%2Fitems", "/API/items" };
		for (int i = 0; i < spellings.length; i++) {
			int before = RulesController.hits.get();
			HttpResponse<String> response = sendAlone(stack, spellings[i], "spelling-" + i);
			boolean reached = RulesController.hits.get() > before;
			if (reached) {
				assertThat(response.headers().firstValue("X-RateLimit-Remaining"))
					.as("%s reached the handler, so the rule counted it", spellings[i])
					.isPresent();
			}
			System.out.printf("%s %s: %d, %s%n", stack, spellings[i], response.statusCode(),
					reached ? "reached the handler, counted" : "no handler");
		}
		// a 10 KB key: past the servers' 8 KB of headers, refused (or left unanswered by
		// Netty) before any handler; never a handler reached uncounted
		String longKey = "k".repeat(10_000);
		int before = RulesController.hits.get();
		try {
			HttpResponse<String> response = send(stack, 0, "GET", "/api/items", longKey);
			if (RulesController.hits.get() > before) {
				assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isPresent();
			}
			else {
				assertThat(response.statusCode()).as("refused before any handler").isBetween(400, 499);
			}
		}
		catch (java.io.IOException ex) {
			assertThat(RulesController.hits.get()).as("no handler reached").isEqualTo(before);
		}
		// a key of 6 KB reaches the handler, counted under its hashed key
		HttpResponse<String> longer = send(stack, 0, "GET", "/api/items", "k".repeat(6_000));
		assertThat(longer.statusCode()).isEqualTo(200);
		assertThat(longer.headers().firstValue("X-RateLimit-Remaining")).hasValue("4");
	}

	/**
	 * A refusal the rejection cache answers at once, right after an admitted call on the
	 * same kept-alive connection (two callers behind one proxy): Reactor Netty before
	 * 1.3.8 held the refusal back, since the admitted exchange had not ended, and never
	 * read the connection again once it was answered inside its own read
	 * (reactor-netty#4361). On 1.3.7, 35 of 1,500 such refusals were never answered.
	 */
	@Test
	void aRefusalAnsweredAtOnceAfterAnAdmittedCallNeverStallsAKeptAliveConnection() throws Exception {
		HttpClient kept = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		for (int i = 0; i < 6; i++) {
			kept.send(request(Stack.WEBFLUX, 0, "GET", "/api/items", "proxied-refused").build(),
					HttpResponse.BodyHandlers.discarding());
		}
		List<Integer> admitted = new ArrayList<>();
		List<Integer> refused = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			admitted
				.add(kept
					.send(request(Stack.WEBFLUX, 0, "GET", "/api/items", "proxied-" + i).timeout(Duration.ofSeconds(2))
						.build(), HttpResponse.BodyHandlers.discarding())
					.statusCode());
			refused.add(kept
				.send(request(Stack.WEBFLUX, 0, "GET", "/api/items", "proxied-refused").timeout(Duration.ofSeconds(2))
					.build(), HttpResponse.BodyHandlers.discarding())
				.statusCode());
		}
		assertThat(admitted).containsOnly(200);
		assertThat(refused).containsOnly(429);
	}

	@Test
	void aRefreshReplacesTheRulesAndABadOneIsRefused() throws Exception {
		ConfigurableApplicationContext context = instances.get(Stack.MVC).get(1);
		try {
			refresh(context, "/v2/**", "GET");
			assertThat(statusesOn(1, "/api/items", "refreshed", 7)).as("no rule on /api/** any more").containsOnly(200);
			assertThat(statusesOn(1, "/v2/nothing", "refreshed", 6)).as("a path without a handler counts too")
				.containsExactly(404, 404, 404, 404, 404, 429);
			refresh(context, "/v2/**", "FETCH");
			assertThat(statusesOn(1, "/v2/nothing", "refreshed-2", 6)).as("the rules in force stay")
				.containsExactly(404, 404, 404, 404, 404, 429);
		}
		finally {
			context.getEnvironment().getPropertySources().remove("refreshed");
			context.publishEvent(new EnvironmentChangeEvent(context, Set.of("limiter.web.rules[0].paths[0]")));
		}
	}

	/**
	 * Change the rule as a configuration refresh does: a new source of properties, then
	 * Spring Cloud's event naming the changed keys. A list binds from one source, so the
	 * rule is written whole.
	 */
	private static void refresh(ConfigurableApplicationContext context, String path, String method) {
		Map<String, Object> rule = new java.util.LinkedHashMap<>();
		rule.put("limiter.web.rules[0].paths[0]", path);
		rule.put("limiter.web.rules[0].exclude[0]", "/api/health");
		rule.put("limiter.web.rules[0].methods[0]", method);
		rule.put("limiter.web.rules[0].methods[1]", "POST");
		rule.put("limiter.web.rules[0].limits[0]", "api-hourly");
		rule.put("limiter.web.rules[0].limits[1]", "api-burst");
		rule.put("limiter.web.rules[0].key", "#headers.getFirst('X-Api-Key')");
		rule.put("limiter.web.rules[0].condition", "#headers.getFirst('X-Internal') == null");
		context.getEnvironment().getPropertySources().remove("refreshed");
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", rule));
		context.publishEvent(new EnvironmentChangeEvent(context, rule.keySet()));
	}

	@Test
	void theEndpointListsEachRuleAsAnOperation() {
		RateLimitsEndpoint endpoint = instances.get(Stack.MVC).get(0).getBean(RateLimitsEndpoint.class);
		assertThat(endpoint.limits().get("limits")).asString()
			.contains("route=rule 0 /api/**")
			.contains("key=#headers.getFirst('X-Api-Key')")
			.contains("name=api-hourly")
			.contains("name=api-burst");
	}

	/**
	 * A body Actuator cannot read as flat fields (a nested plans object, malformed JSON)
	 * is refused as every other bad override is: a 400 whose {@code error} says what to
	 * write, on both stacks, and nothing changes.
	 */
	@ParameterizedTest
	@EnumSource(Stack.class)
	void anOverrideBodyThatIsNotFlatIsA400NamingTheFieldAndTheFlatForm(Stack stack) throws Exception {
		HttpResponse<String> nested = post(stack, "/actuator/ratelimits/api-hourly",
				"{\"plans\": {\"pro\": {\"threshold\": 2}}}");
		assertThat(nested.statusCode()).isEqualTo(400);
		assertThat(nested.body()).startsWith("{\"error\":\"Field plans is not a number or a period")
			.contains("plans.<plan>.threshold");
		HttpResponse<String> malformed = post(stack, "/actuator/ratelimits/api-hourly", "{\"threshold\": ");
		assertThat(malformed.statusCode()).isEqualTo(400);
		assertThat(malformed.body()).startsWith("{\"error\":").contains("not a JSON object of flat fields");
		assertThat(send(stack, 0, "GET", "/actuator/ratelimits/api-hourly", "k").body()).doesNotContain("override");
	}

	private static HttpResponse<String> post(Stack stack, String path, String body) throws Exception {
		String port = instances.get(stack).get(0).getEnvironment().getProperty("local.server.port");
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void theGuidesExampleIsTheOneThisTestRuns() throws Exception {
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		assertThat(guide).contains("## Limits by path, without code");
		assertThat(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Limits by path, without code", "yaml"))
			.contains("limits: [api-hourly, api-burst]")
			.contains("key: \"#headers.getFirst('X-Api-Key')\"");
	}

	private static List<Integer> statuses(Stack stack, String path, String key, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(send(stack, i % 2, "GET", path, key).statusCode());
		}
		return statuses;
	}

	private static List<Integer> statusesOn(int instance, String path, String key, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(send(Stack.MVC, instance, "GET", path, key).statusCode());
		}
		return statuses;
	}

	private static HttpResponse<String> send(Stack stack, int instance, String method, String path, String key)
			throws Exception {
		return http.send(request(stack, instance, method, path, key).build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Send a request on a connection of its own. Reactor Netty before 1.3.8 stops reading
	 * a kept-alive connection when a request that arrived before the previous exchange
	 * ended is then answered without waiting (reactor-netty#4361): a rule's admitted call
	 * ends after its response is written, the client's next request often arrives first,
	 * and a path without a handler is answered at once, so the request after it hung.
	 * What a rule counts does not depend on the connection; docs/operations.md tells
	 * users which Reactor Netty to run.
	 */
	private static HttpResponse<String> sendAlone(Stack stack, String path, String key) throws Exception {
		HttpClient alone = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return alone.send(request(stack, 0, "GET", path, key).build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest.Builder request(Stack stack, int instance, String method, String path, String key) {
		String port = instances.get(stack).get(instance).getEnvironment().getProperty("local.server.port");
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("X-Api-Key", key);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RulesApplication {

		@Bean
		RulesController rulesController() {
			return new RulesController();
		}

	}

	@RestController
	static class RulesController {

		static final AtomicInteger hits = new AtomicInteger();

		@GetMapping("/api/items")
		String items() {
			hits.incrementAndGet();
			return "items";
		}

		@DeleteMapping("/api/items")
		String delete() {
			return "deleted";
		}

		@GetMapping("/api/health")
		String health() {
			return "ok";
		}

		@GetMapping("/public")
		String open() {
			return "public";
		}

		// Mono: limited on both stacks (WebFlux decides a handler that returns a
		// publisher)
		@RateLimit(threshold = 2, period = 60)
		@GetMapping("/api/annotated")
		Mono<String> annotated() {
			return Mono.just("annotated");
		}

		@RateLimit(threshold = 1, period = 60)
		@GetMapping("/api/once")
		Mono<String> once() {
			return Mono.just("once");
		}

	}

}
