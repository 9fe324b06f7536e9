package dev.limiter.web;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.annotation.RateLimit;
import dev.limiter.client.Upstream;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.actuate.ClientMetrics;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @RateLimit} on WebFlux handlers returning {@code Mono} and {@code Flux}, served
 * by Netty over a real Redis, with BlockHound failing any blocking call on a non-blocking
 * thread (which would turn into a 500 here).
 */
class ReactiveRateLimitIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static ConfigurableApplicationContext context;

	private static WebTestClient client;

	private static Upstream upstream;

	@BeforeAll
	static void start() {
		// BlockHound is global to the JVM, so this class runs in a JVM of its own (see
		// the starter's pom). Netty's request threads and Lettuce's event loops are
		// watched by name; nothing on them may block, not even a method's first call.
		NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE);
		try {
			upstream = new Upstream(2, 1_000);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
		context = new SpringApplicationBuilder(ReactiveApplication.class).web(WebApplicationType.REACTIVE)
			// Without the rejection cache, so that each test starts from an empty
			// Redis.
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.rejection-cache.enabled=false",
					"limiter.web.refund-server-errors=true", "limiter.limits.tiers.plans.pro.threshold=6",
					"limiter.clients.upstream.hosts=127.0.0.1", "limiter.clients.upstream.threshold=2",
					"limiter.clients.upstream.period=1s", "test.upstream=" + upstream.url("/data"),
					"limiter.limits.ruled.threshold=2", "limiter.limits.ruled.period=1m",
					"limiter.web.rules[0].paths[0]=/ruled/**", "limiter.web.rules[0].limits[0]=ruled",
					"limiter.web.rules[0].key=#headers.getFirst('X-Api-Key')")
			.run();
		String port = context.getEnvironment().getProperty("local.server.port");
		client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
	}

	@AfterAll
	static void stop() {
		context.close();
		upstream.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void aWebClientWaitsForItsTurnAtAnUpstreamWithoutBlockingAndIsNeverAnswered429() {
		Timer waits = context.getBean(MeterRegistry.class).get(ClientMetrics.WAITS).tag("client", "upstream").timer();
		long waited = waits.count();
		client.get()
			.uri("/relay?calls=5")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).isEqualTo("5"));
		assertThat(upstream.tooMany()).as("requests the upstream refused").isZero();
		// a burst of 2, then 2 per second: the client waited its turn (Limiter's own
		// waits, as it counts them), never the upstream's refusal
		assertThat(waits.count() - waited).as("requests that waited their turn").isPositive();
	}

	@Test
	void aRuleByPathIsDecidedAndAnsweredWithoutBlocking() {
		// WebFlux's 404 for a path without a handler is an error signal: with
		// refund-server-errors on (as here), it is a 4xx and refunds nothing
		for (int i = 0; i < 2; i++) {
			client.get().uri("/ruled/anything").header("X-Api-Key", "ruled").exchange().expectStatus().isNotFound();
		}
		client.get()
			.uri("/ruled/anything")
			.header("X-Api-Key", "ruled")
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.expectHeader()
			.exists("Retry-After")
			.expectHeader()
			.contentType("application/problem+json");
		client.get().uri("/ruled/anything").header("X-Api-Key", "another").exchange().expectStatus().isNotFound();
	}

	@Test
	void blockHoundFailsABlockingCallOnTheServersThreads() {
		client.get().uri("/blocking").exchange().expectStatus().is5xxServerError();
	}

	/**
	 * The guide's WebFlux handler is this class's, line by line, which the test below
	 * runs.
	 */
	@Test
	void theGuidesMonoHandlerIsTheOneThatRuns() throws Exception {
		List<String> shown = DocBlocks
			.codeLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## WebFlux", "java"));
		List<String> source = DocBlocks
			.codeLines(DocBlocks.read(Path.of("src/test/java/dev/limiter/web/ReactiveRateLimitIntegrationTests.java")));
		assertThat(shown).hasSize(5);
		assertThat(source).containsSubsequence(shown);
	}

	@Test
	void aMonoHandlerIsLimitedPerClientWithHeadersAndA429() {
		client.get()
			.uri("/mono")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "1");
		client.get()
			.uri("/mono")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "0");
		client.get()
			.uri("/mono")
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.expectHeader()
			.valueEquals("Retry-After", "30")
			.expectHeader()
			.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("\"status\":429"));
		assertThat(usage("mono", "ip:127.0.0.1")).isEqualTo(2);
	}

	@Test
	void aSpelKeySeesTheExchangeAsRequest() {
		client.get().uri("/tenant").header("X-Tenant", "acme").exchange().expectStatus().isOk();
		client.get().uri("/tenant").header("X-Tenant", "acme").exchange().expectStatus().isEqualTo(429);
		client.get().uri("/tenant").header("X-Tenant", "globex").exchange().expectStatus().isOk();
	}

	@Test
	void the429IsByteForByteTheOneOnRecord() throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		assertThat(raw(port, "/mono")).startsWith("HTTP/1.1 200 ");
		assertThat(raw(port, "/mono")).startsWith("HTTP/1.1 200 ");
		// Jackson 2 (Spring Boot 3.5) writes a problem's members in another order than
		// Jackson 3: one record per line, each what Spring WebFlux's own path wrote.
		String record = ClassUtils.isPresent("tools.jackson.databind.ObjectMapper", null)
				? "reactive-rejection-429.http" : "reactive-rejection-429-jackson2.http";
		String expected = new String(ReactiveRateLimitIntegrationTests.class.getResourceAsStream(record).readAllBytes(),
				StandardCharsets.UTF_8);
		String first = raw(port, "/mono");
		// Kept for a look when the record and the response part.
		Files.writeString(Path.of("target", "reactive-rejection-429.actual"), first);
		assertThat(first).isEqualTo(expected);
		assertThat(raw(port, "/mono")).isEqualTo(expected);
	}

	/** A response as a client reads it off the socket. */
	private static String raw(String port, String path) throws Exception {
		try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(port))) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			ByteArrayOutputStream response = new ByteArrayOutputStream();
			socket.getInputStream().transferTo(response);
			return response.toString(StandardCharsets.UTF_8);
		}
	}

	@Test
	void aRememberedRejectionIsAnsweredOnTheServersThreadWithoutTheStoreBeforeTheHandlersArguments() throws Exception {
		try (ConfigurableApplicationContext remembering = new SpringApplicationBuilder(ReactiveApplication.class)
			.web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.limits.tiers.plans.pro.threshold=6")
			.run()) {
			WebTestClient remembered = WebTestClient.bindToServer()
				.baseUrl("http://localhost:" + remembering.getEnvironment().getProperty("local.server.port"))
				.build();
			assertThat(admitted(remembered, "/tiers?user=dan&tier=basic", 3)).isEqualTo(2);
			long scripts = redis.scriptCalls();
			CommitThreads commits = remembering.getBean(CommitThreads.class);
			commits.threads.clear();
			String body = remembered.get()
				.uri("/tiers?user=dan&tier=basic")
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectHeader()
				.valueEquals("X-RateLimit-Remaining", "0")
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			assertThat(body).contains("\"status\":429").contains("\"limit\":\"tiers\"");
			assertThat(redis.scriptCalls()).as("no script call for a remembered rejection").isEqualTo(scripts);
			// Answered where the request was read: the server's event loop, as a
			// handler's
			// own error is, with BlockHound watching that thread.
			assertThat(commits.threads).singleElement().asString().startsWith("reactor-http-");

			// before the handler's arguments, the same 429 as the store's (one context
			// for
			// both: closing a server's context disposes Reactor Netty's shared loops)
			String port = remembering.getEnvironment().getProperty("local.server.port");
			Probes probes = remembering.getBean(Probes.class);
			assertThat(raw(port, "/probed?user=eve")).startsWith("HTTP/1.1 200 ");
			String fromTheStore = raw(port, "/probed?user=eve");
			assertThat(probes.resolved).as("the handler's arguments resolved, the store said no").hasValue(2);
			String early = raw(port, "/probed?user=eve");
			assertThat(probes.resolved).as("answered before the arguments").hasValue(2);
			assertThat(shape(early)).isEqualTo(shape(fromTheStore));
			assertThat(early).startsWith("HTTP/1.1 429 ");

			// a controller that answers its rejections itself keeps every one of them
			assertThat(raw(port, "/own-answer?user=eve")).startsWith("HTTP/1.1 200 ");
			assertThat(raw(port, "/own-answer?user=eve")).startsWith("HTTP/1.1 418 ").endsWith("own answer");
			assertThat(raw(port, "/own-answer?user=eve")).startsWith("HTTP/1.1 418 ").endsWith("own answer");
			assertThat(probes.resolved).as("every call of that controller resolved its arguments").hasValue(5);
		}
	}

	/** A response with its numbers blanked: the times in its headers move. */
	private static String shape(String response) {
		return response.replaceAll("[0-9]", "#");
	}

	@Test
	void aFailClosedLimitAnswers503WhileRedisIsUnreachable() {
		try (ConfigurableApplicationContext unreachable = new SpringApplicationBuilder(ReactiveApplication.class)
			.web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.data.redis.host=localhost", "spring.data.redis.port=1",
					"limiter.failure.policy=fail-closed", "limiter.limits.tiers.plans.pro.threshold=6")
			.run()) {
			WebTestClient down = WebTestClient.bindToServer()
				.baseUrl("http://localhost:" + unreachable.getEnvironment().getProperty("local.server.port"))
				.build();
			down.get()
				.uri("/mono")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.exists("Retry-After")
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON);
		}
	}

	@Test
	void aServerErrorGivesThePermitBack() {
		for (int i = 0; i < 3; i++) {
			client.get().uri("/failing").exchange().expectStatus().isEqualTo(500);
		}
		assertThat(usage("failing", "ip:127.0.0.1")).isZero();
	}

	@Test
	void aFluxIsLimitedOncePerSubscriptionNotPerElement() {
		client.get()
			.uri("/flux")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).isEqualTo("abc"));
		client.get().uri("/flux").exchange().expectStatus().isEqualTo(429);
	}

	@Test
	void aMonoThatIsNeverSubscribedConsumesNothing() {
		Limited limited = context.getBean(Limited.class);
		Mono<String> unsubscribed = limited.mono();
		assertThat(unsubscribed).isNotNull();
		assertThat(usage("mono", "all")).isZero();
		assertThat(limited.mono().subscribeOn(Schedulers.boundedElastic()).block()).isEqualTo("hello");
		assertThat(usage("mono", "all")).isEqualTo(1);
	}

	@Test
	void aPlanGivesItsNumbersToMonoAndFluxMethods() {
		assertThat(admitted("/tiers?user=ann&tier=pro", 10)).as("the pro plan's threshold").isEqualTo(6);
		assertThat(admitted("/tiers?user=bob&tier=free", 10)).as("a plan the configuration does not define")
			.isEqualTo(2);
		assertThat(admitted("/tiers-flux?user=cy&tier=pro", 10)).as("the pro plan on a Flux").isEqualTo(6);
	}

	@Test
	void aFalseConditionSkipsTheLimitOfAMonoAndAFlux() {
		assertThat(admitted("/conditional?user=admin", 5)).isEqualTo(5);
		assertThat(admitted("/conditional?user=ann", 5)).isEqualTo(1);
		assertThat(admitted("/conditional-flux?user=admin", 5)).isEqualTo(5);
		assertThat(admitted("/conditional-flux?user=ann", 5)).isEqualTo(1);
	}

	@Test
	void aShadowLimitCountsButNeverRejectsAMonoOrAFlux() {
		assertThat(admitted("/shadow", 4)).isEqualTo(4);
		assertThat(admitted("/shadow-flux", 4)).isEqualTo(4);
		assertThat(usage("shadow", "ip:127.0.0.1")).as("admitted under the shadow limit's threshold").isEqualTo(1);
		assertThat(usage("shadowFlux", "ip:127.0.0.1")).isEqualTo(1);
	}

	@Test
	void aShadowLimitBesideAnEnforcedOneIsDecidedInTheSameScriptCall() {
		// The first call loads the script (flushed with the keys): a script call that
		// fails and one that runs.
		assertThat(admitted("/trial", 1)).isEqualTo(1);
		long scripts = redis.scriptCalls();
		assertThat(admitted("/trial", 4)).as("the enforced limit's 3 left").isEqualTo(2);
		assertThat(redis.scriptCalls() - scripts).as("one script call per call, the shadow limit's included")
			.isEqualTo(4);
		AnnotatedOperation trial = context.getBean(RateLimitOperationSource.class)
			.getOperations()
			.stream()
			.filter((operation) -> operation.getMethod().getName().equals("trial"))
			.findFirst()
			.orElseThrow();
		assertThat(context.getBean(RateLimiter.class)
			.usage(trial.shadowKey(trial.key("ip:127.0.0.1")), trial.getShadowLimits())
			.get(0)
			.used()).as("the shadow limit saw the 3 admitted calls only").isEqualTo(3);
	}

	@Test
	void aMonoIsChargedWhatItsValueSaysPastTheBudgetAndItsHeadersSayWhatIsLeft() {
		client.get()
			.uri("/chat?user=ann&tokens=600")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "400");
		client.get()
			.uri("/chat?user=ann&tokens=600")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "0");
		assertThat(usage("chat", "ann")).isEqualTo(1_200);
		client.get().uri("/chat?user=ann&tokens=1").exchange().expectStatus().isEqualTo(429);
		client.get().uri("/chat?user=bob&tokens=1").exchange().expectStatus().isOk();
		assertThat(usage("chat", "bob")).as("less than the reservation gives back").isEqualTo(1);
	}

	@Test
	void aStreamIsChargedTheSumOverItsElementsWhenItEndsWithoutBlocking() {
		client.get()
			.uri("/chat-stream?user=cy")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("Hello").contains("700"));
		assertThat(usage("chatStream", "cy")).as("usage sent with the last element").isEqualTo(700);
		// the status comes with the first element; the charge is recorded before the end
		client.get()
			.uri("/chat-stream?user=cy")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).endsWith("]"));
		assertThat(usage("chatStream", "cy")).as("past the budget").isEqualTo(1_400);
		client.get().uri("/chat-stream?user=cy").exchange().expectStatus().isEqualTo(429);
	}

	@Test
	void aChargeThatFailsLeavesTheReservation() {
		for (int i = 0; i < 2; i++) {
			client.get().uri("/chat-broken").exchange().expectStatus().isOk();
		}
		assertThat(usage("chatBroken", "ip:127.0.0.1")).isEqualTo(2);
	}

	@Test
	void aRefundOnExceptionGivesThePermitBackOfAFlux() {
		for (int i = 0; i < 3; i++) {
			client.get().uri("/refunded-flux").exchange().expectStatus().isBadRequest();
		}
		assertThat(usage("refundedFlux", "ip:127.0.0.1")).isZero();
	}

	@Test
	void aClientThatDisconnectsMidCallFreesItsSlotInFlight() {
		WebTestClient impatient = client.mutate().responseTimeout(Duration.ofMillis(500)).build();
		assertThatIllegalStateException().isThrownBy(() -> impatient.get().uri("/in-flight-held").exchange());
		// the server hears the connection close and cancels the handler's Mono, whose end
		// gives the slot back
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(usage("inFlightHeld", "held")).isZero());
		assertThatIllegalStateException().as("admitted: the call runs until the client gives up")
			.isThrownBy(() -> impatient.get().uri("/in-flight-held").exchange());
	}

	@Test
	void aCallInFlightGivesItsSlotBackBeforeItsAnswerSoTheCallerMayCallAgainAtOnce() {
		// a stream is in flight until its last element: each answer is read whole
		for (String uri : List.of("/in-flight-quick", "/in-flight-quick-flux")) {
			for (int i = 0; i < 5; i++) {
				client.get().uri(uri).exchange().expectStatus().isOk().expectBody(String.class).returnResult();
			}
		}
		for (int i = 0; i < 3; i++) {
			client.get().uri("/in-flight-failing").exchange().expectStatus().is5xxServerError();
		}
		assertThat(usage("inFlightFailing", "failing")).as("an error ends the call too").isZero();
	}

	private static int admitted(String uri, int calls) {
		return admitted(client, uri, calls);
	}

	private static int admitted(WebTestClient client, String uri, int calls) {
		int admitted = 0;
		for (int i = 0; i < calls; i++) {
			int status = client.get().uri(uri).exchange().returnResult(String.class).getStatus().value();
			assertThat(status).isIn(200, 429);
			admitted += (status == 200) ? 1 : 0;
		}
		return admitted;
	}

	private static long usage(String method, String caller) {
		for (AnnotatedOperation operation : context.getBean(RateLimitOperationSource.class).getOperations()) {
			if (operation.getMethod().getName().equals(method)) {
				List<Usage> usage = context.getBean(RateLimiter.class)
					.usage(operation.key(caller), operation.getLimits());
				return usage.get(0).used();
			}
		}
		throw new IllegalStateException("No rate-limited method " + method);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ReactiveApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Limited limited() {
			return new Limited();
		}

		// As Spring Boot's own: a prototype, each client built from a builder of its own.
		@Bean
		@org.springframework.context.annotation.Scope("prototype")
		WebClient.Builder webClientBuilder() {
			return WebClient.builder();
		}

		@Bean
		CommitThreads commitThreads() {
			return new CommitThreads();
		}

		@Bean
		Probes probes() {
			return new Probes();
		}

		@Bean
		ProbedController probedController() {
			return new ProbedController();
		}

		@Bean
		OwnAnswerController ownAnswerController() {
			return new OwnAnswerController();
		}

		@Bean
		Relay relay(WebClient.Builder builder, org.springframework.core.env.Environment environment) {
			return new Relay(builder.build(), environment.getProperty("test.upstream"));
		}

	}

	/** A handler argument whose resolutions are counted. */
	record Probe() {
	}

	/** Resolves {@link Probe} arguments, counting them. */
	static class Probes implements org.springframework.web.reactive.config.WebFluxConfigurer {

		final java.util.concurrent.atomic.AtomicInteger resolved = new java.util.concurrent.atomic.AtomicInteger();

		@Override
		public void configureArgumentResolvers(
				org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer configurer) {
			configurer
				.addCustomResolver(new org.springframework.web.reactive.result.method.HandlerMethodArgumentResolver() {

					@Override
					public boolean supportsParameter(org.springframework.core.MethodParameter parameter) {
						return parameter.getParameterType() == Probe.class;
					}

					@Override
					public Mono<Object> resolveArgument(org.springframework.core.MethodParameter parameter,
							org.springframework.web.reactive.BindingContext bindingContext,
							ServerWebExchange exchange) {
						Probes.this.resolved.incrementAndGet();
						return Mono.just(new Probe());
					}

				});
		}

	}

	@RestController
	static class ProbedController {

		@RateLimit(threshold = 1, period = 60, key = "#user")
		@GetMapping("/probed")
		public Mono<String> probed(@RequestParam String user, Probe probe) {
			return Mono.just("probed " + user);
		}

	}

	@RestController
	static class OwnAnswerController {

		@RateLimit(threshold = 1, period = 60, key = "'own:' + #user")
		@GetMapping("/own-answer")
		public Mono<String> ownAnswer(@RequestParam String user, Probe probe) {
			return Mono.just("answered " + user);
		}

		@org.springframework.web.bind.annotation.ExceptionHandler(dev.limiter.RateLimitExceededException.class)
		org.springframework.http.ResponseEntity<String> refused() {
			return org.springframework.http.ResponseEntity.status(418).body("own answer");
		}

	}

	/** Records the thread on which each response is committed. */
	static class CommitThreads implements WebFilter {

		final List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			exchange.getResponse().beforeCommit(() -> {
				this.threads.add(Thread.currentThread().getName());
				return Mono.empty();
			});
			return chain.filter(exchange);
		}

	}

	@RestController
	static class Limited {

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 1, period = 30, key = "'held'")
		@GetMapping("/in-flight-held")
		public Mono<String> inFlightHeld() {
			return Mono.never();
		}

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 1, period = 30, key = "'quick'")
		@GetMapping("/in-flight-quick")
		public Mono<String> inFlightQuick() {
			return Mono.just("quick");
		}

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 1, period = 30, key = "'quick-flux'")
		@GetMapping("/in-flight-quick-flux")
		public Flux<String> inFlightQuickFlux() {
			return Flux.just("a", "b");
		}

		@RateLimit(algorithm = Algorithm.IN_FLIGHT, threshold = 1, period = 30, key = "'failing'")
		@GetMapping("/in-flight-failing")
		public Mono<String> inFlightFailing() {
			return Mono.error(new IllegalArgumentException("bad"));
		}

		@RateLimit(threshold = 2, period = 30)
		@GetMapping("/mono")
		public Mono<String> mono() {
			return Mono.just("hello");
		}

		@RateLimit(threshold = 1, period = 30, key = "#request.request.headers.getFirst('X-Tenant')")
		@GetMapping("/tenant")
		public Mono<String> tenant() {
			return Mono.just("tenant");
		}

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/failing")
		public Mono<String> failing() {
			return Mono.error(new IllegalStateException("the server failed"));
		}

		@GetMapping("/blocking")
		public Mono<String> blocking() throws InterruptedException {
			Thread.sleep(1);
			return Mono.just("slept");
		}

		@RateLimit(name = "tiers", threshold = 2, period = 30, key = "#user", plan = "#tier")
		@GetMapping("/tiers")
		public Mono<String> tiers(@RequestParam String user, @RequestParam String tier) {
			return Mono.just(tier);
		}

		@RateLimit(name = "tiers", threshold = 2, period = 30, key = "#user", plan = "#tier")
		@GetMapping("/tiers-flux")
		public Flux<String> tiersFlux(@RequestParam String user, @RequestParam String tier) {
			return Flux.just(user, tier);
		}

		@RateLimit(threshold = 1, period = 30, key = "#user", condition = "#user != 'admin'")
		@GetMapping("/conditional")
		public Mono<String> conditional(@RequestParam String user) {
			return Mono.just(user);
		}

		@RateLimit(threshold = 1, period = 30, key = "#user", condition = "#user != 'admin'")
		@GetMapping("/conditional-flux")
		public Flux<String> conditionalFlux(@RequestParam String user) {
			return Flux.just(user);
		}

		@RateLimit(name = "chat", threshold = 1_000, calendar = "day", key = "#user", charge = "#result.tokens")
		@GetMapping("/chat")
		public Mono<Reply> chat(@RequestParam String user, @RequestParam long tokens) {
			return Mono.just(new Reply("Hello", tokens));
		}

		// a model's stream: the usage comes with the last chunk only
		@RateLimit(name = "chat-stream", threshold = 1_000, calendar = "day", key = "#user", charge = "#result.tokens",
				algorithm = dev.limiter.Algorithm.CALENDAR)
		@GetMapping("/chat-stream")
		public Flux<Reply> chatStream(@RequestParam String user) {
			return Flux.just(new Reply("Hello", null), new Reply(" world", null), new Reply("", 700L));
		}

		@RateLimit(threshold = 10, period = 30, algorithm = dev.limiter.Algorithm.TOKEN_BUCKET,
				charge = "#result.missing")
		@GetMapping("/chat-broken")
		public Mono<Reply> chatBroken() {
			return Mono.just(new Reply("Hello", 5L));
		}

		@RateLimit(threshold = 3, period = 30)
		@RateLimit(name = "reactive-trial", threshold = 10, period = 30, shadow = true)
		@GetMapping("/trial")
		public Mono<String> trial() {
			return Mono.just("tried");
		}

		@RateLimit(threshold = 1, period = 30, shadow = true)
		@GetMapping("/shadow")
		public Mono<String> shadow() {
			return Mono.just("watched");
		}

		@RateLimit(threshold = 1, period = 30, shadow = true)
		@GetMapping("/shadow-flux")
		public Flux<String> shadowFlux() {
			return Flux.just("watched");
		}

		@RateLimit(threshold = 1, period = 30, refundOn = BadInput.class)
		@GetMapping("/refunded-flux")
		public Flux<String> refundedFlux() {
			return Flux.error(new BadInput());
		}

		@RateLimit(threshold = 1, period = 30)
		@GetMapping("/flux")
		public Flux<String> flux() {
			return Flux.just("a", "b", "c");
		}

	}

	/**
	 * A client's error (400, so no server-error refund), refunded by {@code refundOn}.
	 */
	@ResponseStatus(HttpStatus.BAD_REQUEST)
	static class BadInput extends RuntimeException {

	}

	/**
	 * A model's answer, or one chunk of it.
	 *
	 * @param text the text
	 * @param tokens the tokens used, on the last chunk of a stream only
	 */
	record Reply(String text, Long tokens) {
	}

	/**
	 * Calls a rate-limited upstream through a WebClient of the application's builder.
	 */
	@RestController
	static class Relay {

		private final WebClient client;

		private final String upstream;

		Relay(WebClient client, String upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		@GetMapping("/relay")
		public Mono<Long> relay(@RequestParam int calls) {
			return Flux.range(0, calls)
				.concatMap((call) -> this.client.get().uri(this.upstream).retrieve().bodyToMono(String.class))
				.count();
		}

	}

}
