package dev.limiter.gateway;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Two real gateways (Netty, the gateway's own {@code RequestRateLimiter} filter) route to
 * a local upstream and count on one real Redis, with BlockHound failing any blocking call
 * on Netty's or Lettuce's threads.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GatewayIntegrationTests {

	private static final RedisServer redis = RedisServer.start();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static DisposableServer upstream;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() {
		// Netty's event loops (the gateway's server, its client and the upstream) and
		// Lettuce's are watched by name.
		NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE);
		upstream = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> response.sendString(request.uri().startsWith("/slow/")
					// the timer of a thread that may block: Netty's buffer allocator can
					// park a thread, which BlockHound forbids on Reactor's parallel
					// threads
					? Mono.delay(Duration.ofSeconds(2), Schedulers.boundedElastic()).thenReturn("slow " + request.uri())
					: Mono.just("upstream " + request.uri())))
			.bindNow();
		first = gateway();
		second = gateway();
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		if (upstream != null) {
			upstream.disposeNow();
		}
		redis.close();
	}

	@Test
	@Order(0)
	void blockHoundWatchesAndLimiterIsTheFiltersDefault() throws Exception {
		CompletableFuture<Throwable> caught = new CompletableFuture<>();
		Thread watched = new Thread(() -> {
			try {
				Thread.sleep(1);
				caught.complete(null);
			}
			catch (Throwable ex) {
				caught.complete(ex);
			}
		}, "reactor-http-nio-watched");
		watched.start();
		assertThat(caught.get()).isInstanceOf(BlockingOperationError.class);
		// Spring Data Redis brings a reactive template, so the gateway registers its own
		// limiter too; Limiter's is the one the filter uses by default.
		assertThat(first.getBeansOfType(org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.class))
			.containsOnlyKeys("redisRateLimiter", GatewayRateLimiter.BEAN_NAME);
		assertThat(first.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
			.isSameAs(first.getBean(GatewayRateLimiter.BEAN_NAME));
	}

	@Test
	@Order(1)
	void aRouteWithTwoLimitsAdmitsExactlyTheSmallerOneAcrossTwoGateways() {
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			calls.add(http.sendAsync(get((i % 2 == 0) ? first : second, "/orders/" + i, "alice"),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = calls.stream().map(CompletableFuture::join).toList();
		List<HttpResponse<String>> admitted = responses.stream().filter((r) -> r.statusCode() == 200).toList();
		List<HttpResponse<String>> rejected = responses.stream().filter((r) -> r.statusCode() == 429).toList();
		assertThat(responses).extracting((response) -> response.statusCode() + " " + response.body())
			.allMatch((response) -> response.startsWith("200 upstream /orders/") || response.startsWith("429 "));
		assertThat(admitted).hasSize(7);
		assertThat(rejected).hasSize(23);
		assertThat(admitted).allSatisfy((response) -> {
			assertThat(response.body()).startsWith("upstream /orders/");
			assertThat(response.headers().firstValue("RateLimit-Policy")).isPresent();
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
			// The same answer as every other surface of Limiter.
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.body()).contains("\"status\":429")
				.contains("\"limit\":\"per-user-hour\"")
				.contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
				.contains("\"violated-policies\":[\"per-user-hour\"]")
				.contains("\"retryAfter\":" + retryAfter)
				.contains("\"instance\":\"/orders/");
		});
		// All or nothing: the rejected calls took nothing from the route's other limit.
		GatewayRateLimiter limiter = first.getBean(GatewayRateLimiter.class);
		AnnotatedOperation route = limiter.route("orders");
		assertThat(route.getLimits()).extracting((limit) -> limit.name()).containsExactly("per-user-hour", "orders");
		List<Usage> usage = first.getBean(RateLimiter.class).usage(route.key("alice"), route.getLimits());
		assertThat(usage).extracting(Usage::used).containsExactly(7L, 7L);
	}

	@Test
	@Order(2)
	void aRememberedRejectionIsAnsweredOnTheServersThreadWithoutTheStore() throws Exception {
		// alice used the route's hourly quota above: this gateway's rejection cache
		// remembers her.
		long scripts = redis.scriptCalls();
		CommitThreads commits = first.getBean(CommitThreads.class);
		commits.threads.clear();
		HttpResponse<String> rejected = http.send(get(first, "/orders/remembered", "alice"),
				HttpResponse.BodyHandlers.ofString());
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.body()).contains("\"limit\":\"per-user-hour\"");
		assertThat(redis.scriptCalls()).as("no script call for a remembered rejection").isEqualTo(scripts);
		// Answered where the request was read, the server's event loop, with BlockHound
		// watching that thread: no hop to Reactor's parallel threads.
		assertThat(commits.threads).singleElement().asString().startsWith("reactor-http-");
	}

	@Test
	@Order(2)
	void everyCallerHasItsOwnQuota() throws Exception {
		HttpResponse<String> response = http.send(get(second, "/orders/1", "bob"),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("6");
	}

	@Test
	@Order(3)
	void routesCountUnderTheirPlansWatchWithShadowLimitsAndAreSeenLikeAnnotatedMethods() throws Exception {
		assertThat(statuses("/tiered/1", "dave", null, 3)).containsExactly(200, 200, 429);
		assertThat(statuses("/tiered/1", "erin", "pro", 5)).containsExactly(200, 200, 200, 200, 429);
		// limiter.limits.watched (1 a minute, the window of the route's own limit) only
		// watches, under a key apart: the route's own limit decides
		assertThat(statuses("/watched/1", "fay", null, 3)).containsExactly(200, 200, 200);
		MeterRegistry meters = first.getBean(MeterRegistry.class);
		assertThat(decisions(meters, "n:tiered", "allowed")).isEqualTo(6);
		assertThat(decisions(meters, "n:tiered", "rejected")).isEqualTo(2);
		assertThat(decisions(meters, "r:watched", "allowed")).isEqualTo(3);
		assertThat(decisions(meters, "r:watched", "shadow-rejected")).isEqualTo(2);
		assertThat(GatewayApplication.observed).contains("limiter.decision n:tiered allowed",
				"limiter.decision n:tiered rejected");
		RateLimitsEndpoint endpoint = first.getBean(RateLimitsEndpoint.class);
		@SuppressWarnings("unchecked")
		Map<String, Object> listed = (Map<String, Object>) endpoint.limits().get("limits");
		assertThat(listed).containsKeys("n:tiered", "r:watched", "r:orders");
		assertThat(listed.get("n:tiered")).asString().contains("route=route 'tiered'");
		assertThat(listed.get("r:orders")).as("the key of a route keyed by a resolver names it")
			.asString()
			.contains("key=key-resolver #{@userKeyResolver}");
		assertThat(endpoint.usage("tiered", "dave").getBody().get("limits")).asString().contains("used=2");
		endpoint.reset("tiered", "dave");
		assertThat(statuses("/tiered/1", "dave", null, 1)).containsExactly(200);
		// an operator's override applies to the route's next request on every gateway
		assertThat(endpoint.override("tiered", null, 3L, null, null, SecurityContext.NONE).getStatus()).isEqualTo(200);
		try {
			assertThat(statuses("/tiered/1", "gus", null, 4)).containsExactly(200, 200, 200, 429);
		}
		finally {
			endpoint.override("tiered", null, null, null, null, SecurityContext.NONE);
		}
	}

	@Test
	@Order(3)
	void aRouteWithMaxWaitServesARequestWhoseTurnComesWithinItInsteadOfRejectingIt() {
		// 1 a second: of two requests at once, the second waits about a second for its
		// turn (limiter.max-wait: 3s) instead of being answered 429.
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			calls.add(http.sendAsync(get(first, "/paced/" + i, "hal"), HttpResponse.BodyHandlers.ofString()));
		}
		assertThat(calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode)).containsExactly(200, 200);
		assertThat(first.getBean(GatewayRateLimiter.class).route("paced").getMaxWait()).hasSeconds(3);
	}

	@Test
	@Order(3)
	void aRouteInFlightHoldsASlotUntilTheUpstreamsResponseIsFinishedAcrossTwoGateways() {
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			calls.add(http.sendAsync(get((i % 2 == 0) ? first : second, "/slow/" + i, "ida"),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<Integer> statuses = calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();
		assertThat(statuses).as("2 in flight, the upstream answering in 2 s").containsOnly(200, 429);
		assertThat(statuses.stream().filter((status) -> status == 200)).hasSize(2);
		assertThat(calls.stream().map(CompletableFuture::join).filter((response) -> response.statusCode() == 429))
			.allSatisfy((response) -> assertThat(response.headers().firstValue("Retry-After")).hasValue("1"));
		// every slot is given back as its exchange ends, just after the response's last
		// byte was sent
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat((List<?>) redis.command("KEYS", "*:f")).isEmpty());
		assertThat(http.sendAsync(get(second, "/slow/again", "ida"), HttpResponse.BodyHandlers.ofString())
			.join()
			.statusCode()).isEqualTo(200);
	}

	private static List<Integer> statuses(String path, String user, String plan, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			HttpRequest.Builder request = HttpRequest.newBuilder(get(first, path, user), (name, value) -> true);
			if (plan != null) {
				request.header("X-Plan", plan);
			}
			statuses.add(http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode());
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

	/**
	 * The guide's route is a part of the README's configuration, which the README's test
	 * starts: every argument the guide shows, with its value, is one the README's route
	 * has.
	 */
	@Test
	void theGuidesRouteIsPartOfTheReadmesConfiguration() throws Exception {
		List<String> shown = DocBlocks
			.yamlLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## Spring Cloud Gateway", "yaml"));
		List<String> configured = DocBlocks.yamlLines(DocBlocks.read(Path.of("src/test/resources/readme-gateway.yml")));
		assertThat(shown).hasSizeGreaterThan(4);
		assertThat(configured).containsAll(shown);
	}

	// After the shared gateways' tests: closing a gateway releases Reactor Netty's
	// global resources, which they share.
	@Test
	@Order(5)
	void theReadmesConfigurationGivesTheRouteItsLimits() throws Exception {
		String yaml = Files.readString(Path.of("src/test/resources/readme-gateway.yml"));
		assertThat(Files.readString(Path.of("README.md"))).contains("```yaml\n" + yaml + "```");
		try (ConfigurableApplicationContext gateway = gateway(
				List.of("spring.config.additional-location=classpath:readme-gateway.yml"))) {
			AnnotatedOperation route = gateway.getBean(GatewayRateLimiter.class).route("orders");
			assertThat(route.getLimits()).containsExactly(
					Limit.of("per-user-hour", 1000, Duration.ofHours(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED),
					Limit.of("orders", 10, Duration.ofSeconds(1))
						.withAlgorithm(Algorithm.TOKEN_BUCKET)
						.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
			assertThat(route.getLimits()).extracting(Limit::failurePolicy).containsOnly(FailurePolicy.FAIL_CLOSED);
			assertThat(route.forPlan("pro").getLimits()).extracting(Limit::threshold).containsExactly(10_000L, 10L);
			assertThat(route.getMaxWait()).isEqualTo(Duration.ofMillis(500));
		}
	}

	// Last: a context that fails to start releases Reactor Netty's global resources,
	// which the running gateways share.
	@Test
	@Order(6)
	void aRouteWhoseArgumentsCannotBeEnforcedStopsTheStart() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> gateway(route(0, "half", "http://127.0.0.1:1", "/half/**", "limiter.threshold=100")))
			.withMessage("route 'half': limiter.threshold and limiter.period go together, but only limiter.threshold "
					+ "is given. Give both, such as limiter.threshold: 10 and limiter.period: 1m.");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> gateway(route(0, "patient", "http://127.0.0.1:1", "/patient/**", "limiter.threshold=1",
					"limiter.period=1m", "limiter.max-wait=5m")))
			.withMessage("route 'patient': limiter.max-wait is 300000ms, not a duration between 0 and 60s. Set it to "
					+ "how long a request may wait for its turn, such as limiter.max-wait: 500ms, or remove it to "
					+ "reject at once.");
	}

	@Test
	@Order(4)
	void whileRedisIsPausedARouteCountsLocallyByDefaultAFailOpenRouteAdmitsAndAFailClosedRouteAnswers503()
			throws Exception {
		redis.pause();
		try {
			HttpResponse<String> open = http.send(get(first, "/open/1", "carol"), HttpResponse.BodyHandlers.ofString());
			assertThat(open.statusCode()).isEqualTo(200);
			assertThat(open.body()).isEqualTo("upstream /open/1");
			// Nobody knows the quota while Redis is silent: no quota headers.
			assertThat(open.headers().firstValue("RateLimit")).isEmpty();
			HttpResponse<String> closed = http.send(get(first, "/closed/1", "carol"),
					HttpResponse.BodyHandlers.ofString());
			assertThat(closed.statusCode()).isEqualTo(503);
			assertThat(closed.headers().firstValue("Retry-After")).isPresent();
			assertThat(closed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(closed.body()).contains("\"status\":503").contains("\"limit\":\"closed\"");
			// The default policy counts in this gateway's memory, with the quota's
			// headers.
			HttpResponse<String> counted = http.send(get(first, "/counted/1", "carol"),
					HttpResponse.BodyHandlers.ofString());
			assertThat(counted.statusCode()).isEqualTo(200);
			assertThat(counted.headers().firstValue("RateLimit")).hasValue("\"counted\";r=99;t=60");
		}
		finally {
			redis.resume();
		}
	}

	private static HttpRequest get(ConfigurableApplicationContext gateway, String path, String user) {
		String port = gateway.getEnvironment().getProperty("local.server.port");
		// A wedged gateway fails the test instead of hanging the build.
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-User", user)
			.timeout(Duration.ofSeconds(30))
			.build();
	}

	private static ConfigurableApplicationContext gateway() {
		String upstreamUri = "http://127.0.0.1:" + upstream.port();
		List<String> properties = new ArrayList<>(route(0, "orders", upstreamUri, "/orders/**",
				"limiter.name=per-user-hour", "limiter.threshold=10", "limiter.period=1m"));
		properties.addAll(route(1, "open", upstreamUri, "/open/**", "limiter.threshold=100", "limiter.period=1m",
				"limiter.failure-policy=fail-open"));
		properties.addAll(route(2, "closed", upstreamUri, "/closed/**", "limiter.threshold=100", "limiter.period=1m",
				"limiter.failure-policy=fail-closed"));
		properties
			.addAll(route(3, "counted", upstreamUri, "/counted/**", "limiter.threshold=100", "limiter.period=1m"));
		properties.addAll(route(4, "tiered", upstreamUri, "/tiered/**", "limiter.name=tiered",
				"limiter.plan-resolver=#{@planResolver}"));
		properties.addAll(route(5, "watched", upstreamUri, "/watched/**", "limiter.name=watched",
				"limiter.threshold=100", "limiter.period=1m"));
		properties.addAll(route(6, "paced", upstreamUri, "/paced/**", "limiter.threshold=1", "limiter.period=1s",
				"limiter.max-wait=3s"));
		properties.addAll(route(7, "slow", upstreamUri, "/slow/**", "limiter.threshold=2", "limiter.period=30s",
				"limiter.algorithm=in-flight"));
		return gateway(properties);
	}

	private static ConfigurableApplicationContext gateway(List<String> routes) {
		List<String> properties = new ArrayList<>(List.of("server.port=0", "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "limiter.timeout=200ms",
				"limiter.limits.per-user-hour.threshold=7", "limiter.limits.per-user-hour.period=1h",
				"limiter.limits.tiered.threshold=2", "limiter.limits.tiered.period=1m",
				"limiter.limits.tiered.plans.pro.threshold=4", "limiter.limits.watched.threshold=1",
				"limiter.limits.watched.period=1m", "limiter.limits.watched.shadow=true"));
		properties.addAll(routes);
		return new SpringApplicationBuilder(GatewayApplication.class).web(WebApplicationType.REACTIVE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static List<String> route(int index, String id, String uri, String path, String... limiterArguments) {
		String route = "spring.cloud.gateway.server.webflux.routes[" + index + "].";
		String filter = route + "filters[0].";
		List<String> properties = new ArrayList<>(
				List.of(route + "id=" + id, route + "uri=" + uri, route + "predicates[0]=Path=" + path,
						filter + "name=RequestRateLimiter", filter + "args[rate-limiter]=#{@limiterRateLimiter}",
						filter + "args[key-resolver]=#{@userKeyResolver}"));
		for (String argument : limiterArguments) {
			int equals = argument.indexOf('=');
			properties.add(filter + "args[" + argument.substring(0, equals) + "]" + argument.substring(equals));
		}
		return properties;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class GatewayApplication {

		@Bean
		KeyResolver userKeyResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
		}

		@Bean
		CommitThreads commitThreads() {
			return new CommitThreads();
		}

		@Bean
		PlanResolver planResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Plan"));
		}

		static final List<String> observed = new CopyOnWriteArrayList<>();

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public boolean supportsContext(Observation.Context context) {
					return "limiter.decision".equals(context.getName());
				}

				@Override
				public void onStop(Observation.Context context) {
					observed.add(context.getName() + " " + context.getLowCardinalityKeyValue("limiter.limit").getValue()
							+ " " + context.getLowCardinalityKeyValue("limiter.result").getValue());
				}

			});
			return registry;
		}

	}

	/** Records the thread on which each response is committed. */
	static class CommitThreads implements WebFilter {

		final List<String> threads = new CopyOnWriteArrayList<>();

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			exchange.getResponse().beforeCommit(() -> {
				this.threads.add(Thread.currentThread().getName());
				return Mono.empty();
			});
			return chain.filter(exchange);
		}

	}

}
