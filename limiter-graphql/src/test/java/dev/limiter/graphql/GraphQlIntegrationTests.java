package dev.limiter.graphql;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import graphql.ExecutionInput;
import graphql.execution.instrumentation.InstrumentationContext;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.SimplePerformantInstrumentation;
import graphql.execution.instrumentation.parameters.InstrumentationExecutionParameters;
import graphql.execution.preparsed.PreparsedDocumentEntry;
import graphql.execution.preparsed.PreparsedDocumentProvider;
import graphql.language.Document;
import org.springframework.boot.graphql.autoconfigure.GraphQlSourceBuilderCustomizer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.graphql.client.ClientGraphQlResponse;
import org.springframework.graphql.client.SubscriptionErrorException;
import org.springframework.graphql.client.WebSocketGraphQlClient;
import org.springframework.graphql.server.WebSocketGraphQlInterceptor;
import org.springframework.graphql.server.WebSocketSessionInfo;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Budgets of points over HTTP on real servers: two Spring MVC instances and two WebFlux
 * instances (under BlockHound) on one real Redis, a budget of 1,000 points an hour per
 * caller (callers told apart by their forwarded address), operations charged by their
 * documents, settled by the lists that came back; a subscription refused over WebSocket
 * with the connection kept.
 */
class GraphQlIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final List<ConfigurableApplicationContext> servlet = new ArrayList<>();

	private static final List<ConfigurableApplicationContext> reactive = new ArrayList<>();

	enum Stack {

		MVC, WEBFLUX;

		List<ConfigurableApplicationContext> instances() {
			return (this == MVC) ? servlet : reactive;
		}

	}

	@BeforeAll
	static void start() {
		NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE);
		for (int i = 0; i < 2; i++) {
			servlet.add(start(WebApplicationType.SERVLET));
			reactive.add(start(WebApplicationType.REACTIVE));
		}
		// graphql-java reads its messages from its jar on its first validation, wherever
		// that runs: read here, so that BlockHound watches Limiter's work only
		for (graphql.i18n.I18n.BundleType bundle : graphql.i18n.I18n.BundleType.values()) {
			graphql.i18n.I18n.i18n(bundle, java.util.Locale.getDefault());
		}
	}

	static ConfigurableApplicationContext start(WebApplicationType type) {
		return new SpringApplicationBuilder(LibraryApplication.class).web(type)
			.properties("server.port=0", "server.address=127.0.0.1", "server.forward-headers-strategy=framework",
					"spring.graphql.websocket.path=/graphql-ws", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.rejection-cache.enabled=false",
					"limiter.limits.points.threshold=1000", "limiter.limits.points.period=1h",
					"limiter.limits.points.algorithm=sliding-buckets", "limiter.graphql.limit=points",
					"limiter.graphql.settle=true", "management.endpoints.web.exposure.include=ratelimits")
			.run();
	}

	@AfterAll
	static void stop() {
		servlet.forEach(ConfigurableApplicationContext::close);
		reactive.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
		Library.entered.set(0);
	}

	/**
	 * graphql-java takes the document the budget parsed to cost the operation, never
	 * parsing it again; the application's own provider (here a cache) keeps its turn, and
	 * an invalid document is still refused by graphql-java's validation.
	 */
	@ParameterizedTest
	@EnumSource(Stack.class)
	void aDocumentIsParsedOnceAndTheApplicationsProviderKeepsItsTurn(Stack stack) throws Exception {
		String document = "{ authors(limit: 3) { name } } # " + stack;
		int parsed = Parses.parsed.get();
		int misses = Cache.misses.get();
		int hits = Cache.hits.get();
		assertThat(post(stack, 0, "10.0.0.7", document).status()).isEqualTo(200);
		assertThat(Cache.misses.get() - misses).as("the application's cache asked once").isEqualTo(1);
		assertThat(post(stack, 0, "10.0.0.7", document).status()).isEqualTo(200);
		assertThat(Cache.hits.get() - hits).as("and answered the second time").isEqualTo(1);
		Answer invalid = post(stack, 0, "10.0.0.7", "{ authors(limit: 3) { nickname } }");
		assertThat(invalid.errors()).singleElement()
			.satisfies((error) -> assertThat(map(error.get("extensions"))).containsEntry("classification",
					"ValidationError"));
		assertThat(Parses.parsed.get() - parsed).as("documents graphql-java parsed itself").isZero();
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aCallerIsRefusedTheQueryThatWouldPassTheirBudgetWithoutAnyResolverEnteredAndAnotherCallerIsNot(Stack stack)
			throws Exception {
		Answer first = post(stack, 0, "10.0.0.1", "{ authors(limit: 600) { name } }");
		assertThat(first.status()).isEqualTo(200);
		assertThat(first.budget()).containsEntry("cost", 600)
			.containsEntry("limit", 1000)
			.containsEntry("remaining", 400);
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("400");

		int entered = Library.entered.get();
		Answer refused = post(stack, 1, "10.0.0.1", "{ authors(limit: 401) { name } }");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isPositive();
		assertThat(refused.body()).doesNotContainKey("data");
		Map<String, Object> error = refused.errors().get(0);
		Map<String, Object> extensions = map(error.get("extensions"));
		assertThat(extensions).containsEntry("classification", "RATE_LIMITED").containsKey("retryAfter");
		assertThat(map(extensions.get("rateLimit"))).containsEntry("cost", 401).containsEntry("remaining", 400);
		assertThat(refused.budget()).as("the response's extensions say what the error's do")
			.isEqualTo(map(extensions.get("rateLimit")));
		assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).as("the points left, fewer than it costs")
			.hasValue("400");
		assertThat(refused.headers().firstValue("RateLimit"))
			.hasValue("\"points\";r=400;t=" + refused.headers().firstValue("Retry-After").orElseThrow());
		assertThat(Library.entered).as("resolvers entered by the refused query").hasValue(entered);

		assertThat(post(stack, 0, "10.0.0.2", "{ authors(limit: 900) { name } }").status()).as("another caller")
			.isEqualTo(200);
		Answer last = post(stack, 1, "10.0.0.1", "{ authors(limit: 400) { name } }");
		assertThat(last.status()).as("exactly the budget").isEqualTo(200);
		assertThat(last.budget()).containsEntry("remaining", 0).containsEntry("used", 1000);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aShortListGivesItsPointsBackOnceSettled(Stack stack) throws Exception {
		// 1 + 500 reserved; three books came back: 1 + 3 charged
		Answer settled = post(stack, 0, "10.0.0.3", "{ books(first: 500) { nodes { title } } }");
		assertThat(settled.status()).isEqualTo(200);
		assertThat(settled.budget()).containsEntry("cost", 4).containsEntry("remaining", 996);
		Answer next = post(stack, 1, "10.0.0.3", "{ authors(limit: 996) { name } }");
		assertThat(next.status()).as("the points given back are spent on the other instance").isEqualTo(200);
		assertThat(post(stack, 1, "10.0.0.3", "{ book(id: 1) { title } }").status()).isEqualTo(429);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aSettledOperationOfScalarsOnlyStillCostsTheRulesMinimum(Stack stack) throws Exception {
		Answer first = post(stack, 0, "10.0.0.9", "{ __typename }");
		assertThat(first.status()).isEqualTo(200);
		assertThat(first.budget()).containsEntry("cost", 1).containsEntry("used", 1);
		Answer second = post(stack, 1, "10.0.0.9", "{ __typename }");
		assertThat(second.budget()).as("settled, never free").containsEntry("cost", 1).containsEntry("used", 2);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void introspectionCostsTheMinimumOfAnyOperationSoEveryBudgetCanReadTheSchema(Stack stack) throws Exception {
		String introspection = "{ __schema { types { name fields { name args { name } } } } }";
		Answer schema = post(stack, 0, "10.0.0.10", introspection);
		assertThat(schema.status()).isEqualTo(200);
		assertThat(map(schema.body().get("data"))).containsKey("__schema");
		assertThat(schema.budget()).as("one point, never free").containsEntry("cost", 1).containsEntry("used", 1);
		assertThat(post(stack, 1, "10.0.0.10", introspection).budget()).containsEntry("used", 2);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void anOperationCostingMoreThanTheWholeBudgetIsRefusedAsTooExpensiveWithoutTheStore(Stack stack) throws Exception {
		Answer refused = post(stack, 0, "10.0.0.4", "{ books(first: 2147483647) { nodes { title } } }");
		assertThat(map(refused.errors().get(0).get("extensions")))
			.containsEntry("classification", "OPERATION_TOO_EXPENSIVE")
			.containsEntry("cost", 2147483648L)
			.containsEntry("limit", 1000);
		assertThat(refused.status()).as("a request that can never pass").isEqualTo(400);
		assertThat(refused.headers().firstValue("Retry-After")).as("no wait lets it pass").isEmpty();
		assertThat(counters()).as("counters in Redis").isEmpty();
		assertThat(Library.entered).hasValue(0);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void hostileDocumentsAreRefusedWithoutAnyResolverAndCostNothing(Stack stack) throws Exception {
		StringBuilder deep = new StringBuilder("{ authors(limit: 100) {");
		// 100^11 authors, as deep as graphql-java's parser lets a document nest
		for (int i = 0; i < 10; i++) {
			deep.append(" books(first: 100) { nodes { author {");
		}
		deep.append(" name").append(" } } }".repeat(10)).append(" } }");
		Answer nested = post(stack, 0, "10.0.0.8", deep.toString());
		assertThat(map(nested.errors().get(0).get("extensions"))).containsEntry("classification",
				"OPERATION_TOO_EXPENSIVE");
		StringBuilder aliases = new StringBuilder("{");
		for (int i = 0; i < 10_000; i++) {
			aliases.append(" a").append(i).append(": books(first: 100) { nodes { title } }");
		}
		// 440 KB past graphql-java's token limit: refused by its parser before Limiter
		// costs it
		// (over WebFlux, by its codec's 256 KB limit on a body before that: Spring
		// answers 500)
		Answer wide = post(stack, 1, "10.0.0.8", aliases.append(" }").toString());
		assertThat(wide.body()).doesNotContainKey("data");
		if (stack == Stack.MVC) {
			assertThat(map(wide.errors().get(0).get("extensions"))).containsEntry("classification", "InvalidSyntax");
		}
		else {
			assertThat(wide.status()).isGreaterThanOrEqualTo(400);
		}
		assertThat(Library.entered).hasValue(0);
		assertThat(counters()).as("counters in Redis").isEmpty();
	}

	/**
	 * The keys that count callers, without the hashes in which each instance shares,
	 * every few seconds, the callers it rejected most in earlier tests
	 * ({@code offenders:}).
	 */
	private static List<String> counters() {
		List<?> keys = (List<?>) redis.command("KEYS", "*");
		return keys.stream().map(String::valueOf).filter((key) -> !key.contains("offenders:")).toList();
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void hostileVariablesAndOperationNamesAreBoundedOverHttp(Stack stack) throws Exception {
		// a slicing variable past any integer: saturated, refused without the store
		Answer huge = post(stack, 0, "10.0.0.9",
				Map.of("query", "query Q($n: Int) { books(first: $n) { nodes { title } } }", "variables",
						Map.of("n", new java.math.BigInteger("99999999999999999999999999"))));
		assertThat(huge.body()).doesNotContainKey("data");
		assertThat(Library.entered).hasValue(0);
		// a name GraphQL does not allow, 2,000 characters long: counted under "other"
		String name = "x".repeat(2_000);
		post(stack, 1, "10.0.0.9", "query " + name + " { book(id: 1) { title } }");
		String odd = "query Q\u0000 { book(id: 1) { title } }";
		post(stack, 1, "10.0.0.9", odd);
		MeterRegistry meters = stack.instances().get(1).getBean(MeterRegistry.class);
		assertThat(meters.find(GraphQlPoints.METER).tag("operation", name).counter()).isNull();
		assertThat(meters.find(GraphQlPoints.METER).meters())
			.allSatisfy((meter) -> assertThat(meter.getId().getTag("operation")).hasSizeLessThanOrEqualTo(64));
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void anInvalidDocumentCostsNothing(Stack stack) throws Exception {
		post(stack, 0, "10.0.0.5", "{ authors(limit: 990) { name nope } }");
		assertThat(post(stack, 1, "10.0.0.5", "{ authors(limit: 1000) { name } }").status()).isEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aRateLimitedResolverIsAnErrorOfItsFieldBesideTheRestOfTheData(Stack stack) throws Exception {
		Answer first = post(stack, 0, "10.0.0.6", "{ limitedTitle(id: 1) }");
		assertThat(first.errors()).isEmpty();
		assertThat(first.headers().firstValue("X-RateLimit-Limit"))
			.as("the response reports the budget that decided it, not its field's own limit")
			.hasValue("1000");
		Answer refused = post(stack, 1, "10.0.0.6", "{ limitedTitle(id: 1) book(id: 1) { title } }");
		assertThat(refused.headers().firstValue("X-RateLimit-Limit")).hasValue("1000");
		assertThat(refused.status()).isEqualTo(200);
		Map<String, Object> data = map(refused.body().get("data"));
		assertThat(data.get("limitedTitle")).isNull();
		assertThat(map(data.get("book"))).containsEntry("title", "Dune");
		Map<String, Object> error = refused.errors().get(0);
		assertThat(error.get("path")).isEqualTo(List.of("limitedTitle"));
		assertThat(map(error.get("extensions"))).containsEntry("classification", "RATE_LIMITED")
			.containsKey("retryAfter");
	}

	@Test
	void pointsAreCountedPerOperationAndTheEndpointShowsACallersPoints() throws Exception {
		post(Stack.MVC, 0, "10.0.0.7", "query Shelf { authors(limit: 30) { name } }");
		post(Stack.MVC, 0, "10.0.0.7", "query Shelf { authors(limit: 990) { name } }");
		MeterRegistry meters = servlet.get(0).getBean(MeterRegistry.class);
		assertThat(
				meters.get(GraphQlPoints.METER).tag("operation", "Shelf").tag("outcome", "charged").counter().count())
			.isEqualTo(30);
		assertThat(
				meters.get(GraphQlPoints.METER).tag("operation", "Shelf").tag("outcome", "refused").counter().count())
			.isEqualTo(990);
		int port = ((WebServerApplicationContext) servlet.get(1)).getWebServer().getPort();
		HttpResponse<String> usage = http.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/ratelimits/points?key=ip:10.0.0.7"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(usage.statusCode()).isEqualTo(200);
		Map<String, Object> limit = map(((List<?>) map(json.readValue(usage.body(), Map.class)).get("limits")).get(0));
		assertThat(limit).containsEntry("name", "points").containsEntry("remaining", 970);
	}

	@Test
	void aSubscriptionRefusedOverWebSocketIsAnErrorOfThatOperationAndTheConnectionStays() throws Exception {
		// 999 of the 1,000 points of 127.0.0.1 spent: a subscription (2) is refused, a
		// book (1) passes
		assertThat(post(Stack.WEBFLUX, 0, null, "{ authors(limit: 999) { name } }").status()).isEqualTo(200);
		int port = ((WebServerApplicationContext) reactive.get(1)).getWebServer().getPort();
		WebSocketGraphQlClient client = WebSocketGraphQlClient
			.builder(URI.create("ws://127.0.0.1:" + port + "/graphql-ws"), new ReactorNettyWebSocketClient())
			.build();
		try {
			Connections connections = reactive.get(1).getBean(Connections.class);
			int before = connections.opened.get();
			assertThatExceptionOfType(SubscriptionErrorException.class)
				.isThrownBy(() -> client.document("subscription { reviewAdded(bookId: 1) { stars } }")
					.executeSubscription()
					.blockLast(Duration.ofSeconds(10)))
				.satisfies(
						(ex) -> assertThat(ex.getErrors().get(0).getErrorType().toString()).isEqualTo("RATE_LIMITED"));
			ClientGraphQlResponse book = client.document("{ book(id: 1) { title } }")
				.execute()
				.block(Duration.ofSeconds(10));
			assertThat((String) book.field("book.title").getValue()).isEqualTo("Dune");
			assertThat(connections.opened.get() - before).as("connections opened").isEqualTo(1);
		}
		finally {
			client.stop().block(Duration.ofSeconds(5));
		}
	}

	private static Answer post(Stack stack, int instance, String forwardedFor, String document) throws Exception {
		return post(stack, instance, forwardedFor, Map.of("query", document));
	}

	private static Answer post(Stack stack, int instance, String forwardedFor, Map<String, Object> body)
			throws Exception {
		int port = ((WebServerApplicationContext) stack.instances().get(instance)).getWebServer().getPort();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/graphql"))
			.header("Content-Type", "application/json")
			.header("Accept", "application/graphql-response+json")
			.POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)));
		if (forwardedFor != null) {
			request.header("X-Forwarded-For", forwardedFor);
		}
		HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		return new Answer(response.statusCode(), response.headers(), map(json.readValue(response.body(), Map.class)));
	}

	@SuppressWarnings("unchecked")
	static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	record Answer(int status, java.net.http.HttpHeaders headers, Map<String, Object> body) {

		Map<String, Object> budget() {
			return map(map(this.body.get("extensions")).get("rateLimit"));
		}

		@SuppressWarnings("unchecked")
		List<Map<String, Object>> errors() {
			return (List<Map<String, Object>>) this.body.getOrDefault("errors", List.of());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class LibraryApplication {

		@Bean
		Library library() {
			return new Library();
		}

		@Bean
		Connections connections() {
			return new Connections();
		}

		@Bean
		Parses parses() {
			return new Parses();
		}

		@Bean
		GraphQlSourceBuilderCustomizer applicationsDocumentCache() {
			return (builder) -> builder.configureGraphQl((graphQl) -> graphQl.preparsedDocumentProvider(new Cache()));
		}

	}

	/** Counts the documents graphql-java parses itself. */
	static class Parses extends SimplePerformantInstrumentation {

		static final AtomicInteger parsed = new AtomicInteger();

		@Override
		public InstrumentationContext<Document> beginParse(InstrumentationExecutionParameters parameters,
				InstrumentationState state) {
			parsed.incrementAndGet();
			return null;
		}

	}

	/** The application's own cache of parsed and validated documents, by their text. */
	static class Cache implements PreparsedDocumentProvider {

		static final AtomicInteger hits = new AtomicInteger();

		static final AtomicInteger misses = new AtomicInteger();

		private final Map<String, PreparsedDocumentEntry> entries = new java.util.concurrent.ConcurrentHashMap<>();

		@Override
		public CompletableFuture<PreparsedDocumentEntry> getDocumentAsync(ExecutionInput input,
				Function<ExecutionInput, PreparsedDocumentEntry> parseAndValidate) {
			PreparsedDocumentEntry entry = this.entries.get(input.getQuery());
			if (entry != null) {
				hits.incrementAndGet();
				return CompletableFuture.completedFuture(entry);
			}
			misses.incrementAndGet();
			entry = parseAndValidate.apply(input);
			this.entries.put(input.getQuery(), entry);
			return CompletableFuture.completedFuture(entry);
		}

	}

	/** Counts the WebSocket connections that clients open. */
	static class Connections implements WebSocketGraphQlInterceptor {

		final AtomicInteger opened = new AtomicInteger();

		@Override
		public Mono<Object> handleConnectionInitialization(WebSocketSessionInfo info, Map<String, Object> payload) {
			this.opened.incrementAndGet();
			return Mono.empty();
		}

	}

}
