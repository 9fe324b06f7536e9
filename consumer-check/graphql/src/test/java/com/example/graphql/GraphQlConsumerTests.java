package com.example.graphql;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application built from the README's block and YAML answers over HTTP as the README
 * says: the books query settles to 4 points (996 left), and the 997-point authors query is
 * a 429 classified RATE_LIMITED, before any resolver.
 */
class GraphQlConsumerTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void theReadmesQueriesCostWhatTheReadmeSays() throws Exception {
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext context = SpringApplication.run(LibraryApplication.class,
						"--server.port=0", "--server.address=127.0.0.1", "--spring.data.redis.host=127.0.0.1",
						"--spring.data.redis.port=" + redis.port())) {
			String port = context.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> books = query(port, "{ books(first: 5) { nodes { title reviews { stars } } } }");
			assertThat(books.statusCode()).isEqualTo(200);
			assertThat(books.headers().firstValue("X-RateLimit-Remaining")).hasValue("996");
			assertThat(books.body()).contains("\"title\":\"Dune\"")
				.contains("\"rateLimit\":{\"cost\":4,\"limit\":1000,\"remaining\":996,\"used\":4");
			HttpResponse<String> authors = query(port, "{ authors(limit: 997) { name } }");
			assertThat(authors.statusCode()).isEqualTo(429);
			assertThat(authors.headers().firstValue("Retry-After")).isPresent();
			assertThat(authors.body()).contains("\"classification\":\"RATE_LIMITED\"")
				.contains("\"cost\":997")
				.doesNotContain("\"data\"");
		}
	}

	private HttpResponse<String> query(String port, String query) throws Exception {
		String body = "{\"query\":\"" + query.replace("\"", "\\\"") + "\"}";
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/graphql"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
