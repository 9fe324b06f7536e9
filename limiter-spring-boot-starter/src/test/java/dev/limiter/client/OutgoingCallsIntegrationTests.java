package dev.limiter.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.actuate.ClientMetrics;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Outgoing calls under {@code limiter.clients}: two instances on one real Redis calling a
 * real upstream with a strict quota of its own, through {@code RestClient}s built from a
 * builder bean, with no code of their own.
 */
class OutgoingCallsIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	private static ConfigurableApplicationContext start(String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "limiter.clients.api.hosts=127.0.0.1"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(ClientApplication.class).web(WebApplicationType.NONE)
			.properties(all.toArray(String[]::new))
			.run();
	}

	@Test
	void twoInstancesHammeringAnUpstreamStayWithinItsQuotaAndEveryCallGetsItsTurn() throws Exception {
		try (Upstream upstream = new Upstream(20, 1_000);
				ConfigurableApplicationContext first = start("limiter.clients.api.threshold=20",
						"limiter.clients.api.period=1s");
				ConfigurableApplicationContext second = start("limiter.clients.api.threshold=20",
						"limiter.clients.api.period=1s")) {
			List<RestClient> clients = List.of(first.getBean(RestClient.Builder.class).build(),
					second.getBean(RestClient.Builder.class).build());
			ExecutorService threads = Executors.newFixedThreadPool(32);
			try {
				List<Callable<Long>> calls = new ArrayList<>();
				for (int i = 0; i < 100; i++) {
					RestClient client = clients.get(i % 2);
					calls.add(() -> {
						long start = System.nanoTime();
						String body = client.get().uri(upstream.url("/data")).retrieve().body(String.class);
						assertThat(body).isEqualTo("ok");
						return System.nanoTime() - start;
					});
				}
				long slowest = 0;
				for (Future<Long> call : threads.invokeAll(calls)) {
					slowest = Math.max(slowest, call.get(60, TimeUnit.SECONDS));
				}
				assertThat(upstream.tooMany()).as("429s from the upstream").isZero();
				assertThat(Duration.ofNanos(slowest)).as("every call within max-wait")
					.isLessThan(Duration.ofSeconds(30));
				List<Long> admitted = upstream.admitted();
				assertThat(admitted).hasSize(100);
				// after the first burst of 20, the pace the upstream sees
				double seconds = (admitted.get(99) - admitted.get(0)) / 1e9;
				double rate = 80 / seconds;
				assertThat(rate).as("requests per second after the first burst, quota 20").isBetween(18.0, 20.0);
				long waited = waits(first).count() + waits(second).count();
				assertThat(waited).as("requests that waited for their turn").isGreaterThan(50);
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	void anInFlightClientCapsTheRequestsThatEveryInstanceTogetherHasAtTheUpstream() throws Exception {
		try (Upstream upstream = new Upstream(1_000, 1_000);
				ConfigurableApplicationContext first = start("limiter.clients.api.threshold=3",
						"limiter.clients.api.period=30s", "limiter.clients.api.algorithm=in-flight");
				ConfigurableApplicationContext second = start("limiter.clients.api.threshold=3",
						"limiter.clients.api.period=30s", "limiter.clients.api.algorithm=in-flight")) {
			upstream.slow(200);
			List<RestClient> clients = List.of(first.getBean(RestClient.Builder.class).build(),
					second.getBean(RestClient.Builder.class).build());
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				List<Callable<String>> calls = new ArrayList<>();
				for (int i = 0; i < 24; i++) {
					RestClient client = clients.get(i % 2);
					calls.add(() -> client.get().uri(upstream.url("/data")).retrieve().body(String.class));
				}
				for (Future<String> call : threads.invokeAll(calls)) {
					assertThat(call.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
				}
				assertThat(upstream.mostRunning()).as("requests at the upstream at once").isBetween(1, 3);
				assertThat(upstream.admitted()).hasSize(24);
				assertThat((List<?>) redis.command("KEYS", "*:f")).as("every slot given back").isEmpty();
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	void aCallThatCannotGetATurnWithinMaxWaitIsNotSentAndSaysWhenTheNextTurnIs() throws Exception {
		try (Upstream upstream = new Upstream(100, 1_000);
				ConfigurableApplicationContext context = start("limiter.clients.api.threshold=1",
						"limiter.clients.api.period=1h", "limiter.clients.api.max-wait=0s")) {
			RestClient client = context.getBean(RestClient.Builder.class).build();
			assertThat(client.get().uri(upstream.url("/data")).retrieve().body(String.class)).isEqualTo("ok");
			assertThatExceptionOfType(RateLimitUnavailableException.class)
				.isThrownBy(() -> client.get().uri(upstream.url("/data")).retrieve().body(String.class))
				.isInstanceOf(RateLimitExceededException.class)
				.withMessageStartingWith("Calls to 'api' [127.0.0.1] wait for their turn at most 0s")
				.satisfies((ex) -> assertThat(ex.getDecision().retryAfter()).isGreaterThan(Duration.ofMinutes(59)));
			assertThat(upstream.admitted()).as("not sent").hasSize(1);
			assertThat(context.getBean(MeterRegistry.class)
				.get(ClientMetrics.REFUSED)
				.tag("client", "api")
				.counter()
				.count()).isEqualTo(1);
			RestClient other = RestClient.builder().build();
			assertThat(other.get().uri(upstream.url("/data")).retrieve().body(String.class))
				.as("a client built by hand, without the interceptor")
				.isEqualTo("ok");
		}
	}

	@Test
	void anUpstreamsRetryAfterHoldsTheClientOnEveryInstanceUntilThen() throws Exception {
		try (Upstream upstream = new Upstream(100, 1_000);
				ConfigurableApplicationContext first = start("limiter.clients.api.threshold=100",
						"limiter.clients.api.period=1s");
				ConfigurableApplicationContext second = start("limiter.clients.api.threshold=100",
						"limiter.clients.api.period=1s")) {
			upstream.answer("/busy", 429, Map.of("Retry-After", "2"));
			awaitSubscribers(2);
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
				.isThrownBy(() -> first.getBean(RestClient.Builder.class)
					.build()
					.get()
					.uri(upstream.url("/busy"))
					.retrieve()
					.body(String.class));
			assertThat(first.getBean(MeterRegistry.class)
				.get(ClientMetrics.UPSTREAM_REJECTIONS)
				.tags("client", "api", "status", "429")
				.counter()
				.count()).isEqualTo(1);
			OutgoingQuota quota = second.getBean(OutgoingQuotas.class).forHost("127.0.0.1");
			await().atMost(Duration.ofSeconds(1)).until(() -> quota.heldFor() > 0);
			RestClient client = second.getBean(RestClient.Builder.class).build();
			assertThat(client.get().uri(upstream.url("/data")).retrieve().body(String.class)).isEqualTo("ok");
			List<Long> admitted = upstream.admitted();
			assertThat(Duration.ofNanos(admitted.get(1) - admitted.get(0)))
				.as("the other instance held by the upstream's Retry-After")
				.isGreaterThanOrEqualTo(Duration.ofMillis(1_990));
		}
	}

	@Test
	void anInstanceThatStartsDuringAHoldIsHeldToo() throws Exception {
		try (Upstream upstream = new Upstream(100, 1_000);
				ConfigurableApplicationContext first = start("limiter.clients.api.threshold=100",
						"limiter.clients.api.period=1s")) {
			upstream.answer("/busy", 429, Map.of("Retry-After", "3"));
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
				.isThrownBy(() -> first.getBean(RestClient.Builder.class)
					.build()
					.get()
					.uri(upstream.url("/busy"))
					.retrieve()
					.body(String.class));
			try (ConfigurableApplicationContext late = start("limiter.clients.api.threshold=100",
					"limiter.clients.api.period=1s")) {
				assertThat(late.getBean(OutgoingQuotas.class).forHost("127.0.0.1").heldFor())
					.as("the hold, read at startup")
					.isPositive();
				assertThat(late.getBean(RestClient.Builder.class)
					.build()
					.get()
					.uri(upstream.url("/data"))
					.retrieve()
					.body(String.class)).isEqualTo("ok");
				List<Long> admitted = upstream.admitted();
				assertThat(Duration.ofNanos(admitted.get(1) - admitted.get(0)))
					.as("the late instance waited out the upstream's Retry-After")
					.isGreaterThanOrEqualTo(Duration.ofMillis(2_990));
			}
		}
	}

	@Test
	void anUpstreamThatAnnouncesASmallerQuotaIsFollowed() throws Exception {
		try (Upstream upstream = new Upstream(5, 1_000);
				ConfigurableApplicationContext context = start("limiter.clients.api.threshold=20",
						"limiter.clients.api.period=1s")) {
			upstream.answer("/data", 200, Map.of("RateLimit-Policy", "\"default\";q=5;w=1"));
			RestClient client = context.getBean(RestClient.Builder.class).build();
			assertThat(client.get().uri(upstream.url("/data")).retrieve().body(String.class)).isEqualTo("ok");
			ExecutorService threads = Executors.newFixedThreadPool(8);
			try {
				List<Callable<String>> calls = new ArrayList<>();
				for (int i = 0; i < 14; i++) {
					calls.add(() -> client.get().uri(upstream.url("/data")).retrieve().body(String.class));
				}
				for (Future<String> call : threads.invokeAll(calls)) {
					assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(upstream.tooMany()).as("429s at 5 a second").isZero();
			List<Long> admitted = upstream.admitted();
			assertThat(Duration.ofNanos(admitted.get(14) - admitted.get(0))).as("15 calls at 5 a second")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(2));
		}
	}

	/**
	 * A quota an upstream announces is the upstream's for every instance: one instance
	 * learns it, every instance follows it, an instance started later too.
	 */
	@Test
	void aSmallerQuotaOneInstanceLearnsIsFollowedByEveryInstance() throws Exception {
		try (Upstream upstream = new Upstream(100, 2_000);
				ConfigurableApplicationContext first = start("limiter.clients.api.threshold=10",
						"limiter.clients.api.period=2s");
				ConfigurableApplicationContext second = start("limiter.clients.api.threshold=10",
						"limiter.clients.api.period=2s")) {
			upstream.answer("/data", 200, Map.of("RateLimit-Policy", "q=4;w=2"));
			awaitSubscribers(2);
			assertThat(first.getBean(RestClient.Builder.class)
				.build()
				.get()
				.uri(upstream.url("/data"))
				.retrieve()
				.body(String.class)).isEqualTo("ok");
			OutgoingQuota followed = second.getBean(OutgoingQuotas.class).forHost("127.0.0.1");
			await().atMost(Duration.ofSeconds(2)).until(() -> followed.limit().threshold() == 4);
			try (ConfigurableApplicationContext late = start("limiter.clients.api.threshold=10",
					"limiter.clients.api.period=2s")) {
				assertThat(late.getBean(OutgoingQuotas.class).forHost("127.0.0.1").limit().threshold())
					.as("read at startup")
					.isEqualTo(4);
			}
		}
	}

	@Test
	void withRedisDownTheLocalPolicyPacesEachInstanceOnItsOwn() throws Exception {
		try (Upstream upstream = new Upstream(2, 1_000);
				ConfigurableApplicationContext context = new SpringApplicationBuilder(ClientApplication.class)
					.web(WebApplicationType.NONE)
					.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1",
							"limiter.clients.api.hosts=127.0.0.1", "limiter.clients.api.threshold=2",
							"limiter.clients.api.period=1s")
					.run()) {
			RestClient client = context.getBean(RestClient.Builder.class).build();
			for (int i = 0; i < 4; i++) {
				assertThat(client.get().uri(upstream.url("/data")).retrieve().body(String.class)).isEqualTo("ok");
			}
			assertThat(upstream.tooMany()).isZero();
			List<Long> admitted = upstream.admitted();
			assertThat(Duration.ofNanos(admitted.get(2) - admitted.get(0))).as("the third after the first left")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		}
	}

	private static Timer waits(ConfigurableApplicationContext context) {
		return context.getBean(MeterRegistry.class).get(ClientMetrics.WAITS).tag("client", "api").timer();
	}

	private static void awaitSubscribers(int count) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) redis.command("PUBSUB", "NUMSUB", "limiter:holds")).get(1).toString(),
					(subscribers) -> Integer.parseInt(subscribers) >= count);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ClientApplication {

		// As Spring Boot's own: a prototype, each client built from a builder of its own.
		@Bean
		@Scope("prototype")
		RestClient.Builder restClientBuilder() {
			return RestClient.builder();
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
