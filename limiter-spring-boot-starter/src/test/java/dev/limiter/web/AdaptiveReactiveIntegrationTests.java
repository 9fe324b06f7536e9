package dev.limiter.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.adaptive.AdaptiveLimit;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An adaptive limit on WebFlux, with BlockHound failing any blocking call on Netty's and
 * Lettuce's threads (this class runs in the JVM of the starter's BlockHound tests): the
 * gate admits up to the learned number of running Monos (the application's first two
 * rate-limited calls arrive together), refuses the next with the 503 that names it, takes
 * the slots back when the Monos complete, and learns a drop from a Mono that fails with a
 * 503.
 */
class AdaptiveReactiveIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final HttpClient http = HttpClient.newHttpClient();

	private static ConfigurableApplicationContext context;

	private static String base;

	@BeforeAll
	static void start() {
		NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE);
		context = new SpringApplicationBuilder(AdaptiveApplication.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.limits.learned.algorithm=adaptive",
					"limiter.limits.learned.threshold=4", "limiter.limits.learned.adaptive.initial=2",
					"limiter.limits.learned.adaptive.strategy=aimd")
			.run();
		base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
	}

	@AfterAll
	static void stop() {
		Held.release.tryEmitEmpty();
		context.close();
	}

	@Test
	void theLearnedNumberOfMonosRunsTheNextIsRefusedAndAFailedOneIsADrop() throws Exception {
		AdaptiveLimit learned = context.getBean(LimitResolver.class).local().get("learned").learned();
		List<CompletableFuture<HttpResponse<Void>>> held = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			held.add(http.sendAsync(request("/held"), HttpResponse.BodyHandlers.discarding()));
		}
		List<Integer> answered = new CopyOnWriteArrayList<>();
		held.forEach((answer) -> answer.thenAccept((response) -> answered.add(response.statusCode())));
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(learned.inFlight()).as("answered %s", answered).isEqualTo(2));
		HttpResponse<String> refused = http.send(request("/held"), HttpResponse.BodyHandlers.ofString());
		assertThat(refused.statusCode()).isEqualTo(503);
		assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"learned\";q=2");
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(refused.body()).contains("temporary-reduced-capacity");
		Held.release.tryEmitEmpty();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answered.size() == 2);
		assertThat(answered).containsOnly(200);
		assertThat(learned.inFlight()).as("both ended").isZero();
		HttpResponse<String> failed = http.send(request("/failing"), HttpResponse.BodyHandlers.ofString());
		assertThat(failed.statusCode()).isEqualTo(503);
		assertThat(learned.limit()).as("a 503 is a drop: 2 × 0.9").isEqualTo(1);
		assertThat(learned.inFlight()).isZero();
	}

	private static HttpRequest request(String path) {
		return HttpRequest.newBuilder(URI.create(base + path)).build();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class AdaptiveApplication {

		@Bean
		Held held() {
			return new Held();
		}

	}

	@RestController
	static class Held {

		static final Sinks.Empty<Void> release = Sinks.empty();

		@RateLimit(name = "learned")
		@GetMapping("/held")
		public Mono<String> held() {
			return release.asMono().thenReturn("released");
		}

		@RateLimit(name = "learned")
		@GetMapping("/failing")
		public Mono<String> failing() {
			return Mono.error(new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE));
		}

	}

}
