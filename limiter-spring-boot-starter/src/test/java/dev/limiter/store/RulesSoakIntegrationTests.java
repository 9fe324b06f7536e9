package dev.limiter.store;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.Decision;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.store.SoakSamples.Sample;
import dev.limiter.test.RedisServer;

import static dev.limiter.store.SoakSamples.minutes;
import static dev.limiter.store.SoakSamples.sample;
import static dev.limiter.store.SoakSamples.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak of the rules by path, over HTTP: a Spring MVC instance and a WebFlux instance
 * of one application on one Redis, one rule over {@code /api/**} (5 a second per API key,
 * 50 keys, every path of it counted together), at a steady load of kept-alive connections
 * for {@code limiter.soak.minutes} (30 by default). Sampled every thirtieth of the run:
 * the heap after a full GC, the live threads, Redis's used memory and key count, and the
 * excluded path answered uncounted on both instances. At the end: every request answered
 * 200 or 429 (none left unanswered, none failed), the 200s the ones the rule admitted,
 * and those admissions against the exact oracle by Redis's clock. Run with
 * {@code -Psoak}; the figures are in docs/operations.md.
 */
@Tag("soak")
@Tag("soak-rules")
class RulesSoakIntegrationTests {

	private static final Duration RUN = Duration.ofMinutes(Integer.getInteger("limiter.soak.minutes", 30));

	private static final int KEYS = 50;

	private static final int THRESHOLD = 5;

	private static final long PERIOD_MICROS = 1_000_000;

	private static final int THREADS_PER_INSTANCE = 2;

	/** Requests per second of each thread: 400 a second in all, 8 per key against 5. */
	private static final int RATE = 100;

	/**
	 * The admissions the rule's decisions report, for the oracle: each key's index and
	 * Redis's time, off the heap, so that the heap samples measure the applications.
	 */
	private static final ByteBuffer admissions = ByteBuffer
		.allocateDirect((int) (RUN.toSeconds() * RATE * THREADS_PER_INSTANCE * 2 * 12 + 4096));

	private static final AtomicInteger decidedAdmissions = new AtomicInteger();

	private static final AtomicLong degraded = new AtomicLong();

	private static final ConcurrentMap<String, Integer> keyIndexes = new ConcurrentHashMap<>();

	private static final AtomicInteger nextKeyIndex = new AtomicInteger();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicLong requests = new AtomicLong();

	private final AtomicLong answeredOk = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	private final ConcurrentMap<String, AtomicLong> failureKinds = new ConcurrentHashMap<>();

	private final AtomicLong slowestNanos = new AtomicLong();

	@Test
	void rulesByPathOverHttpForHalfAnHourLeaveNothingBehind() throws Exception {
		try (RedisServer redis = RedisServer.start()) {
			List<ConfigurableApplicationContext> instances = List.of(start(WebApplicationType.SERVLET, redis),
					start(WebApplicationType.REACTIVE, redis));
			try {
				List<String> bases = instances.stream()
					.map((context) -> "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"))
					.toList();
				CountDownLatch stopped = new CountDownLatch(2 * THREADS_PER_INSTANCE);
				for (String base : bases) {
					for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
						Thread thread = new Thread(() -> load(base, stopped), "rules-soak-load");
						thread.setDaemon(true);
						thread.start();
					}
				}
				HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
				List<Sample> samples = new ArrayList<>();
				List<String> uncounted = new ArrayList<>();
				long start = System.nanoTime();
				long step = RUN.toNanos() / 30;
				for (int i = 1; i <= 30; i++) {
					sleepUntil(start + i * step);
					for (String base : bases) {
						HttpResponse<Void> health = probe.send(request(base + "/api/health", "soak-0"),
								HttpResponse.BodyHandlers.discarding());
						if (health.statusCode() != 200 || health.headers().firstValue("RateLimit").isPresent()) {
							uncounted
								.add(base + " answered /api/health " + health.statusCode() + " at " + minutes(start));
						}
					}
					samples.add(sample(redis, minutes(start)));
				}
				this.running.set(false);
				assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
				long overAdmission = overAdmission();
				System.out.printf(
						"rules soak, %d min: %d requests, %d answered 200, %d refused, %d failed %s, %d decided by "
								+ "the policy, slowest %d ms; %d admissions decided; over-admission by the oracle %d%n",
						RUN.toMinutes(), this.requests.get(), this.answeredOk.get(), this.rejected.get(),
						this.failures.get(), this.failureKinds, degraded.get(),
						TimeUnit.NANOSECONDS.toMillis(this.slowestNanos.get()), decidedAdmissions.get(), overAdmission);
				samples.forEach((sample) -> System.out.println("rules soak sample: " + sample));
				Sample settled = samples.get(2);
				Sample last = samples.get(samples.size() - 1);
				assertThat(this.failures.get())
					.as("requests unanswered or answered neither 200 nor 429 %s", this.failureKinds)
					.isZero();
				assertThat(uncounted).as("the excluded path, never counted").isEmpty();
				assertThat(this.answeredOk.get()).as("every 200 is an admission the rule decided")
					.isEqualTo(decidedAdmissions.get() + degraded.get());
				assertThat(overAdmission).as("admissions above 5 in any second of a key").isZero();
				assertThat(last.heapMb()).as("heap after GC, MB").isLessThanOrEqualTo(settled.heapMb() + 8);
				assertThat(last.threads()).as("live threads").isLessThanOrEqualTo(settled.threads() + 10);
				assertThat(last.redisKeys()).as("Redis keys").isLessThanOrEqualTo(2L * KEYS + 10);
				assertThat(last.redisKb()).as("Redis used memory, KB").isLessThanOrEqualTo(settled.redisKb() + 4096);
			}
			finally {
				instances.forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	private static ConfigurableApplicationContext start(WebApplicationType type, RedisServer redis) {
		return new SpringApplicationBuilder(SoakApplication.class).web(type)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.limits.soak-rule.threshold=" + THRESHOLD,
					"limiter.limits.soak-rule.period=1s", "limiter.web.rules[0].paths[0]=/api/**",
					"limiter.web.rules[0].exclude[0]=/api/health", "limiter.web.rules[0].limits[0]=soak-rule",
					"limiter.web.rules[0].key=#headers.getFirst('X-Api-Key')")
			.run();
	}

	private void load(String base, CountDownLatch stopped) {
		// one kept-alive connection per thread, as a client behind a proxy has
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
		long next = System.nanoTime();
		try {
			while (this.running.get()) {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				String uri = base + "/api/items/" + random.nextInt(1_000);
				long start = System.nanoTime();
				try {
					int status = http
						.send(request(uri, "soak-" + random.nextInt(KEYS)), HttpResponse.BodyHandlers.discarding())
						.statusCode();
					if (status == 200) {
						this.answeredOk.incrementAndGet();
					}
					else if (status == 429) {
						this.rejected.incrementAndGet();
					}
					else {
						failed("status " + status);
					}
				}
				catch (java.io.IOException ex) {
					failed(ex.getClass().getSimpleName());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				this.requests.incrementAndGet();
				this.slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
				next += interval;
				sleepUntil(next);
			}
		}
		finally {
			stopped.countDown();
		}
	}

	private void failed(String kind) {
		this.failures.incrementAndGet();
		this.failureKinds.computeIfAbsent(kind, (k) -> new AtomicLong()).incrementAndGet();
	}

	private static HttpRequest request(String uri, String key) {
		return HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).header("X-Api-Key", key).build();
	}

	/** Admissions above the threshold in any window of each key, by Redis's clock. */
	private static long overAdmission() {
		List<List<Long>> times = new ArrayList<>();
		for (int key = 0; key < nextKeyIndex.get(); key++) {
			times.add(new ArrayList<>());
		}
		for (int i = 0; i < decidedAdmissions.get(); i++) {
			times.get(admissions.getInt(i * 12)).add(admissions.getLong(i * 12 + 4));
		}
		long over = 0;
		for (List<Long> key : times) {
			long[] sorted = key.stream().mapToLong(Long::longValue).sorted().toArray();
			over += Math.max(0, FailoverLoad.mostInAnyWindow(sorted, PERIOD_MICROS) - THRESHOLD);
		}
		return over;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class SoakApplication {

		@Bean
		Items items() {
			return new Items();
		}

		/** Records what the rule admitted, by Redis's clock, for the oracle. */
		@Bean
		RateLimitDecisionListener admissionsRecorder() {
			return (operation, decision) -> record(decision);
		}

		private static void record(Decision decision) {
			if (decision.isDegraded()) {
				if (decision.isAllowed()) {
					degraded.incrementAndGet();
				}
				return;
			}
			if (!decision.isAllowed() || decision.grant() == null) {
				return;
			}
			int index = keyIndexes.computeIfAbsent(decision.grant().key(), (key) -> nextKeyIndex.getAndIncrement());
			int slot = decidedAdmissions.getAndIncrement() * 12;
			admissions.putInt(slot, index);
			admissions.putLong(slot + 4, decision.decidedAtMicros());
		}

	}

	@RestController
	static class Items {

		@GetMapping("/api/items/{id}")
		String item(@PathVariable String id) {
			return "item " + id;
		}

		@GetMapping("/api/health")
		String health() {
			return "up";
		}

	}

}
