package dev.limiter.graphql;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Bad settings of the budget stop the start naming what to fix; a key expression over the
 * request's headers tells callers apart.
 */
class GraphQlStartupIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void aBudgetNamingAnUndefinedLimitStopsTheStart() {
		assertThatException().isThrownBy(() -> start("limiter.graphql.limit=pionts").close())
			.withStackTraceContaining(
					"limiter.graphql.limit: limiter.limits.pionts: the limit 'pionts' is not defined");
	}

	@Test
	void settlingASlidingLogStopsTheStartNamingTheAlgorithmToChoose() {
		assertThatException()
			.isThrownBy(() -> start("limiter.limits.points.threshold=100", "limiter.limits.points.period=1h",
					"limiter.graphql.limit=points", "limiter.graphql.settle=true")
				.close())
			.withStackTraceContaining("limiter.graphql.settle: true is given to the sliding-log limit 'points'")
			.withStackTraceContaining("Set limiter.limits.points.algorithm to sliding-buckets or token-bucket");
	}

	@Test
	void aKeyExpressionReadingAnUnknownVariableStopsTheStartNamingTheProperty() {
		assertThatException()
			.isThrownBy(() -> start("limiter.limits.points.threshold=100", "limiter.limits.points.period=1h",
					"limiter.graphql.limit=points", "limiter.graphql.key=#header.getFirst('X-Api-Key')")
				.close())
			.withStackTraceContaining("limiter.graphql.key: key '#header.getFirst('X-Api-Key')' refers to #header")
			.withStackTraceContaining("#headers");
	}

	@Test
	void aNegativeAssumedListSizeStopsTheStart() {
		assertThatException()
			.isThrownBy(() -> start("limiter.limits.points.threshold=100", "limiter.limits.points.period=1h",
					"limiter.graphql.limit=points", "limiter.graphql.assumed-list-size=-1")
				.close())
			.withStackTraceContaining("limiter.graphql.assumed-list-size is -1");
	}

	@Test
	void aWeightThatIsNotANumberStopsTheStartNamingTheField() {
		assertThatException()
			.isThrownBy(() -> start("limiter.limits.points.threshold=100", "limiter.limits.points.period=1h",
					"limiter.graphql.limit=points", "spring.graphql.schema.locations=classpath:graphql-heavy/")
				.close())
			.withStackTraceContaining("@cost(weight: \"heavy\") on shelf is not a number");
	}

	@Test
	void aKeyExpressionOverTheHeadersTellsCallersApart() throws Exception {
		try (ConfigurableApplicationContext context = start("limiter.limits.points.threshold=10",
				"limiter.limits.points.period=1h", "limiter.graphql.limit=points",
				"limiter.graphql.key=#headers.getFirst('X-Api-Key')")) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			assertThat(post(port, "team-a", "{ authors(limit: 10) { name } }")).isEqualTo(200);
			assertThat(post(port, "team-a", "{ book(id: 1) { title } }")).isEqualTo(429);
			assertThat(post(port, "team-b", "{ book(id: 1) { title } }")).as("another key, same address")
				.isEqualTo(200);
			// a key of 4,000 characters is a key like another (bounded to its hash); past
			// 8 KB
			// Tomcat refuses the header itself with a 400
			String huge = "k".repeat(4_000);
			assertThat(post(port, huge, "{ authors(limit: 10) { name } }")).isEqualTo(200);
			assertThat(post(port, huge, "{ book(id: 1) { title } }")).isEqualTo(429);
		}
	}

	private static int post(int port, String apiKey, String document) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/graphql"))
			.header("Content-Type", "application/json")
			.header("X-Api-Key", apiKey)
			.POST(HttpRequest.BodyPublishers.ofString("{\"query\":\"" + document + "\"}"))
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
	}

	private static ConfigurableApplicationContext start(String... properties) {
		redis.flushAll();
		return new SpringApplicationBuilder(GraphQlIntegrationTests.LibraryApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port())
			.properties(properties)
			.run();
	}

}
