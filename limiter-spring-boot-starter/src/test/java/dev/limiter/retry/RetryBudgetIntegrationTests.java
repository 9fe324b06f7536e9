package dev.limiter.retry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.stereotype.Service;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.client.LimiterClientsAutoConfiguration;
import dev.limiter.client.RateLimitClientHttpRequestInterceptor;
import dev.limiter.test.DocBlocks;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Retry budgets over the real path: {@code @Retryable} methods whose RestClient calls a
 * real HTTP downstream, three instances sharing a real Redis, the guide's example and
 * YAML as the guide shows them.
 */
class RetryBudgetIntegrationTests {

	private static RedisServer redis;

	private static Downstream downstream;

	@BeforeAll
	static void start() throws IOException {
		redis = RedisServer.start();
		downstream = new Downstream();
	}

	@AfterAll
	static void stop() {
		downstream.close();
		redis.close();
	}

	@BeforeEach
	void reset() {
		redis.flushAll();
		downstream.reset(Downstream.Mode.FAIL);
	}

	private static ApplicationContextRunner instance(String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
			.withUserConfiguration(Services.class)
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
			.withBean(RestClient.Builder.class, RestClient::builder)
			.withPropertyValues("payments.url=" + downstream.url())
			.withPropertyValues(properties);
	}

	private static ApplicationContextRunner guideInstance() throws IOException {
		List<String> yaml = new ArrayList<>();
		new YamlPropertySourceLoader()
			.load("guide",
					new ByteArrayResource(
							DocBlocks.block(GUIDE, RETRY_BUDGETS, "yaml").getBytes(StandardCharsets.UTF_8)))
			.forEach((source) -> {
				EnumerablePropertySource<?> properties = (EnumerablePropertySource<?>) source;
				for (String name : properties.getPropertyNames()) {
					yaml.add(name + "=" + properties.getProperty(name));
				}
			});
		return instance(yaml.toArray(String[]::new));
	}

	private static final Path GUIDE = Path.of("..", "docs", "guide.md");

	private static final String RETRY_BUDGETS = "### Retry budgets: retries that never multiply an outage";

	@Test
	void theGuidesServiceIsThisOne() {
		List<String> shown = DocBlocks.codeLines(DocBlocks.block(GUIDE, RETRY_BUDGETS, "java"));
		List<String> source = DocBlocks
			.codeLines(DocBlocks.read(Path.of("src/test/java/dev/limiter/retry/RetryBudgetIntegrationTests.java")));
		assertThat(shown).hasSizeGreaterThan(10);
		assertThat(source).containsSubsequence(shown);
	}

	@Test
	void theGuidesExampleRetriesAFailureOnceItsBudgetHasFirstAttempts() throws IOException {
		guideInstance().run((context) -> {
			assertThat(context).hasNotFailed();
			PaymentsClient payments = context.getBean(PaymentsClient.class);
			downstream.mode.set(Downstream.Mode.OK);
			for (int i = 0; i < 10; i++) {
				assertThat(payments.charge("order-" + i)).isEqualTo("receipt");
			}
			// every other request fails: each call's first attempt fails, its retry
			// passes
			downstream.requests.set(0);
			downstream.mode.set(Downstream.Mode.FAIL_ODD);
			assertThat(payments.charge("order-10")).isEqualTo("receipt");
			assertThat(downstream.requests).hasValue(2);
			assertThat(context.getBean(RetryBudgets.class)).isNotNull();
		});
	}

	@Test
	void threeInstancesRetryingAFailingDownstreamAddAtMostTheRatioAndTheAllowance() throws Exception {
		// a patient limiter.timeout: on a loaded machine a 50 ms wait may pass, and each
		// instance would then count alone, with an allowance of its own
		ApplicationContextRunner instance = instance("limiter.retry-budgets.payments.ratio=0.2",
				"limiter.retry-budgets.payments.min-per-second=2", "limiter.timeout=2s");
		instance.run((a) -> instance.run((b) -> instance.run((c) -> {
			int calls = 300;
			long started = System.nanoTime();
			int failed = callTogether(calls, a, b, c);
			double seconds = (System.nanoTime() - started) / 1e9;
			int firstAttempts = 3 * calls;
			int retries = downstream.requests.get() - firstAttempts;
			System.out.printf("Retry budget: %d first attempts, %d retries (%.2fx the first attempts) in %.1f s%n",
					firstAttempts, retries, downstream.requests.get() / (double) firstAttempts, seconds);
			assertThat(failed).isEqualTo(firstAttempts);
			assertThat(retries).isLessThanOrEqualTo((int) (0.2 * firstAttempts) + 2 * ((int) Math.ceil(seconds) + 1));
			assertThat(retries).isGreaterThanOrEqualTo((int) (0.1 * firstAttempts));

			// without a budget, the same retries: four times the first attempts
			downstream.requests.set(0);
			int unbudgeted = 0;
			for (int i = 0; i < calls; i++) {
				try {
					a.getBean(UnbudgetedPayments.class).charge("order-" + i);
				}
				catch (HttpServerErrorException ex) {
					unbudgeted++;
				}
			}
			System.out.printf("Without a budget: %d calls, %d requests (%.2fx)%n", unbudgeted,
					downstream.requests.get(), downstream.requests.get() / (double) calls);
			assertThat(downstream.requests).hasValue(4 * calls);

			// the downstream recovers: its successes are first attempts that pay for
			// retries at once
			downstream.mode.set(Downstream.Mode.OK);
			for (int i = 0; i < 20; i++) {
				a.getBean(FastPayments.class).charge("order-" + i);
			}
			downstream.requests.set(0);
			downstream.mode.set(Downstream.Mode.FAIL_ODD);
			assertThat(b.getBean(FastPayments.class).charge("order-20")).isEqualTo("receipt");
			assertThat(downstream.requests).hasValue(2);
		})));
	}

	@Test
	void aDeniedRetryIsNotMadeAndTheCallFailsAtOnceWithItsLastException() {
		instance("limiter.retry-budgets.payments.ratio=0.01", "limiter.retry-budgets.payments.min-per-second=0")
			.withBean(RetryEvents.class)
			.run((context) -> {
				FastPayments payments = context.getBean(FastPayments.class);
				RetryEvents events = context.getBean(RetryEvents.class);
				assertThatExceptionOfType(HttpServerErrorException.class).isThrownBy(() -> payments.charge("order"))
					.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).isEqualTo("down"))
					.satisfies((ex) -> assertThat(ex).isSameAs(events.failures.get(0)));
				assertThat(downstream.requests).hasValue(1);
				// @Retryable reported the first failure, then the denied retry's, and
				// made no third attempt: the call ended at once
				assertThat(events.failures).hasSize(2);
				assertThat(context.getBean(RetryBudgets.class)).isNotNull();
			});
	}

	@Test
	void aTemplatesRetriesAndAReactiveCallsAreBudgetedAlike() {
		instance("limiter.retry-budgets.payments.ratio=0.5", "limiter.retry-budgets.payments.min-per-second=0")
			.run((context) -> {
				RetryBudgets budgets = context.getBean(RetryBudgets.class);
				RestClient client = RestClient.create(downstream.url());
				RetryTemplate template = new RetryTemplate(
						RetryPolicy.builder().maxRetries(3).delay(Duration.ofMillis(1)).build());
				// 4 first attempts pay for 2 retries: the first call gets them, then
				// fails
				for (int i = 0; i < 3; i++) {
					budgets.firstAttempt("payments");
				}
				assertThatExceptionOfType(RetryException.class)
					.isThrownBy(() -> budgets.execute("payments", template,
							() -> client.get().uri("/").retrieve().body(String.class)))
					.havingCause()
					.isInstanceOf(HttpServerErrorException.class);
				assertThat(downstream.requests).hasValue(3);

				downstream.requests.set(0);
				for (int i = 0; i < 3; i++) {
					budgets.firstAttempt("payments");
				}
				Mono<String> call = Mono.fromCallable(() -> client.get().uri("/").retrieve().body(String.class));
				assertThat(budgets.retry("payments", call, Retry.max(3))
					.onErrorResume((ex) -> Mono.just(ex.getClass().getSimpleName()))
					.block()).isEqualTo("ServiceUnavailable");
				assertThat(downstream.requests).hasValue(3);
			});
	}

	@Test
	void firstAttemptsCostNoRedisCallAndARetryOne() {
		instance("limiter.retry-budgets.payments.ratio=0.2").run((context) -> {
			FastPayments payments = context.getBean(FastPayments.class);
			downstream.mode.set(Downstream.Mode.OK);
			payments.charge("warm-up");
			long before = redis.scriptCalls();
			long started = System.nanoTime();
			for (int i = 0; i < 1_000; i++) {
				payments.charge("order-" + i);
			}
			long flushes = 2 + Duration.ofNanos(System.nanoTime() - started).toMillis()
					/ dev.limiter.internal.retry.SharedRetryBudgets.FLUSH.toMillis();
			long successes = redis.scriptCalls() - before;
			System.out.printf("1,000 successful calls: %d script calls%n", successes);
			assertThat(successes).isLessThanOrEqualTo(flushes).isLessThan(100);

			downstream.mode.set(Downstream.Mode.FAIL_ODD);
			downstream.requests.set(0);
			before = redis.scriptCalls();
			assertThat(payments.charge("order")).isEqualTo("receipt");
			assertThat(downstream.requests).hasValue(2);
			assertThat(redis.scriptCalls() - before).isBetween(1L, 2L);
		});
	}

	@Test
	void withRedisGoneEachInstanceKeepsABudgetOfItsOwn() {
		int deadPort = RedisServer.freePort();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
			.withUserConfiguration(Services.class)
			.withBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", deadPort)))
			.withBean(RestClient.Builder.class, RestClient::builder)
			.withPropertyValues("payments.url=" + downstream.url(), "limiter.retry-budgets.payments.ratio=0.2",
					"limiter.retry-budgets.payments.min-per-second=1")
			.run((context) -> {
				FastPayments payments = context.getBean(FastPayments.class);
				long started = System.nanoTime();
				for (int i = 0; i < 100; i++) {
					assertThatExceptionOfType(HttpServerErrorException.class)
						.isThrownBy(() -> payments.charge("order"));
				}
				double seconds = (System.nanoTime() - started) / 1e9;
				int retries = downstream.requests.get() - 100;
				assertThat(retries).isPositive().isLessThanOrEqualTo(20 + (int) Math.ceil(seconds) + 1);
			});
	}

	@Test
	void aRetryThroughALimitedClientStillWaitsOutWhatTheUpstreamSaid() {
		instance("limiter.retry-budgets.payments.ratio=0.2", "limiter.retry-budgets.payments.min-per-second=1",
				"limiter.clients.payments.hosts=127.0.0.1", "limiter.clients.payments.threshold=100",
				"limiter.clients.payments.period=1s")
			.withConfiguration(AutoConfigurations.of(LimiterClientsAutoConfiguration.class))
			.withUserConfiguration(HeldPaymentsConfiguration.class)
			.run((context) -> {
				HeldPayments payments = context.getBean(HeldPayments.class);
				downstream.reset(Downstream.Mode.HOLD_ONCE);
				assertThat(payments.charge("order")).isEqualTo("receipt");
				// the budget paid for the retry, and the client held it until the
				// upstream's
				// Retry-After: 1 had passed
				assertThat(downstream.arrivals).hasSize(2);
				assertThat(downstream.arrivals.get(1) - downstream.arrivals.get(0))
					.isGreaterThanOrEqualTo(Duration.ofMillis(900).toNanos());
			});
	}

	@Test
	void anAnnotationNamingNoBudgetStopsTheStart() {
		instance().run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("@RetryBudget(\"payments\")")
			.hasMessageContaining("limiter.retry-budgets.payments.ratio"));
	}

	@Test
	void badValuesStopTheStartNamingTheProperty() {
		instance("limiter.retry-budgets.payments.ratio=1.5").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("limiter.retry-budgets.payments.ratio"));
		instance("limiter.retry-budgets.payments.min-per-second=-1").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("limiter.retry-budgets.payments.min-per-second"));
		instance("limiter.retry-budgets.payments.ratio=0", "limiter.retry-budgets.payments.min-per-second=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("allows no retry at all"));
		// mistyped and huge values: Boot's binder refuses them, naming the property
		instance("limiter.retry-budgets.payments.ratio=lots").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasStackTraceContaining("limiter.retry-budgets.payments.ratio"));
		instance("limiter.retry-budgets.payments.min-per-second=99999999999999999999")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.retry-budgets.payments.min-per-second"));
	}

	// Each instance on a thread of its own, calling as fast as its calls end.
	private static int callTogether(int calls, AssertableApplicationContext... instances) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(instances.length);
		try {
			List<Future<Integer>> failures = new ArrayList<>();
			for (AssertableApplicationContext instance : instances) {
				FastPayments payments = instance.getBean(FastPayments.class);
				failures.add(threads.submit(() -> {
					int failed = 0;
					for (int i = 0; i < calls; i++) {
						try {
							payments.charge("order-" + i);
						}
						catch (HttpServerErrorException ex) {
							failed++;
						}
					}
					return failed;
				}));
			}
			int failed = 0;
			for (Future<Integer> instance : failures) {
				failed += instance.get();
			}
			return failed;
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class Services {

		@Bean
		PaymentsClient paymentsClient(RestClient.Builder builder, @Value("${payments.url}") String url) {
			return new PaymentsClient(builder, url);
		}

		@Bean
		FastPayments fastPayments(RestClient.Builder builder, @Value("${payments.url}") String url) {
			return new FastPayments(builder.baseUrl(url).build());
		}

		@Bean
		UnbudgetedPayments unbudgetedPayments(RestClient.Builder builder, @Value("${payments.url}") String url) {
			return new UnbudgetedPayments(builder.baseUrl(url).build());
		}

	}

	@Service
	public static class PaymentsClient {

		private final RestClient payments;

		public PaymentsClient(RestClient.Builder builder, @Value("${payments.url}") String url) {
			this.payments = builder.baseUrl(url).build();
		}

		@Retryable(maxRetries = 3, delay = 100)
		@RetryBudget("payments")
		public String charge(String order) {
			return this.payments.post().uri("/charges").body(order).retrieve().body(String.class);
		}

	}

	/**
	 * The guide's service without its back-off, so that a test makes hundreds of calls.
	 */
	public static class FastPayments {

		private final RestClient payments;

		FastPayments(RestClient payments) {
			this.payments = payments;
		}

		@Retryable(maxRetries = 3, delay = 1)
		@RetryBudget("payments")
		public String charge(String order) {
			return this.payments.post().uri("/charges").body(order).retrieve().body(String.class);
		}

	}

	/** The fast service on a client built by hand with the quota's interceptor. */
	public static class HeldPayments extends FastPayments {

		HeldPayments(RestClient payments) {
			super(payments);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeldPaymentsConfiguration {

		// A client built by hand takes the interceptor that keeps to the quota.
		@Bean
		HeldPayments heldPayments(RateLimitClientHttpRequestInterceptor interceptor,
				@Value("${payments.url}") String url) {
			return new HeldPayments(RestClient.builder().baseUrl(url).requestInterceptor(interceptor).build());
		}

	}

	/** The same retries without a budget. */
	public static class UnbudgetedPayments {

		private final RestClient payments;

		UnbudgetedPayments(RestClient payments) {
			this.payments = payments;
		}

		@Retryable(maxRetries = 3, delay = 1)
		public String charge(String order) {
			return this.payments.post().uri("/charges").body(order).retrieve().body(String.class);
		}

	}

	/** The failures {@code @Retryable} reports, in order, before the budget's abort. */
	static class RetryEvents implements ApplicationListener<MethodRetryEvent>, org.springframework.core.Ordered {

		@Override
		public int getOrder() {
			return 0;
		}

		final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(MethodRetryEvent event) {
			this.failures.add(event.getFailure());
		}

	}

}
