package dev.limiter.sample.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway sample as the README describes it: its application.yml, a real Redis and a
 * stand-in for the servlet sample behind the {@code /api} route.
 */
class GatewaySampleTests {

	private static final RedisServer redis = RedisServer.start();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static DisposableServer upstream;

	private static ConfigurableApplicationContext sample;

	@BeforeAll
	static void start() {
		upstream = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> response.sendString(Mono.just("servlet sample " + request.uri())))
			.bindNow();
		sample = new SpringApplicationBuilder(GatewaySampleApplication.class).run("--server.port=0",
				"--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
				"--sample.demo-redis=false", "--sample.upstream=http://127.0.0.1:" + upstream.port());
	}

	@AfterAll
	static void stop() {
		sample.close();
		upstream.disposeNow();
		redis.close();
	}

	@Test
	void theWebFluxEndpointAdmitsTwoPer30SecondsThenAnswersAProblem() throws Exception {
		List<HttpResponse<String>> responses = get("/hello", 3);
		assertThat(responses.get(0).statusCode()).isEqualTo(200);
		assertThat(responses.get(0).body()).isEqualTo("{\"greeting\":\"Hello from WebFlux!\"}");
		assertThat(responses.get(1).headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		HttpResponse<String> rejected = responses.get(2);
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(rejected.body()).contains("\"status\":429").contains("\"threshold\":2");
	}

	@Test
	void aFluxIsLimitedOncePerSubscription() throws Exception {
		List<HttpResponse<String>> responses = get("/ticks", 4);
		assertThat(responses.subList(0, 3)).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("[1,2,3,4,5]");
		});
		assertThat(responses.get(3).statusCode()).isEqualTo(429);
	}

	@Test
	void theRouteAdmitsFivePer10SecondsPerClient() throws Exception {
		List<HttpResponse<String>> responses = get("/api/greeting", 6);
		assertThat(responses.subList(0, 5)).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("servlet sample /greeting");
		});
		HttpResponse<String> rejected = responses.get(5);
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
		assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"sample\";q=5;w=10");
	}

	private static List<HttpResponse<String>> get(String path, int times) throws Exception {
		String port = sample.getEnvironment().getProperty("local.server.port");
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			responses.add(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		return responses;
	}

}
