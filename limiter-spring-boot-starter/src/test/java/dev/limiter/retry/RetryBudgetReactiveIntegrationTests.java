package dev.limiter.retry;

import java.io.IOException;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Retry budgets of WebClient calls, by {@code @Retryable} on a method that returns a
 * {@code Mono} and by {@link RetryBudgets#retry(String, Mono, Retry)}, with BlockHound
 * failing any blocking call on Reactor Netty's and Lettuce's threads (this class runs in
 * the JVM of the starter's BlockHound tests).
 */
class RetryBudgetReactiveIntegrationTests {

	private static RedisServer redis;

	private static Downstream downstream;

	@BeforeAll
	static void start() throws IOException {
		NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE);
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
			.withPropertyValues(properties);
	}

	@Test
	void aRetryableMonoPaysForEachResubscription() {
		instance("limiter.retry-budgets.payments.ratio=0.2", "limiter.retry-budgets.payments.min-per-second=0")
			.run((context) -> {
				ReactivePayments payments = context.getBean(ReactivePayments.class);
				// no first attempt has paid for a retry yet: no retry is made, and the
				// call ends as @Retryable's exhausted retries end, its cause the last
				// error
				assertThatException().isThrownBy(() -> payments.charge("order").block(Duration.ofSeconds(10)))
					.matches(Exceptions::isRetryExhausted)
					.havingCause()
					.isInstanceOf(WebClientResponseException.ServiceUnavailable.class);
				assertThat(downstream.requests).hasValue(1);

				downstream.mode.set(Downstream.Mode.OK);
				for (int i = 0; i < 20; i++) {
					assertThat(payments.charge("order-" + i).block(Duration.ofSeconds(10))).isEqualTo("receipt");
				}
				downstream.reset(Downstream.Mode.FAIL_ODD);
				assertThat(payments.charge("order").block(Duration.ofSeconds(10))).isEqualTo("receipt");
				assertThat(downstream.requests).hasValue(2);
			});
	}

	@Test
	void aWebClientCallsRetriesArePaidForWithoutBlocking() {
		instance("limiter.retry-budgets.payments.ratio=0.5", "limiter.retry-budgets.payments.min-per-second=0")
			.run((context) -> {
				RetryBudgets budgets = context.getBean(RetryBudgets.class);
				WebClient client = WebClient.create(downstream.url());
				Mono<String> call = client.get().uri("/").retrieve().bodyToMono(String.class);
				// 4 first attempts (3 by hand, the call's own) pay for 2 retries
				for (int i = 0; i < 3; i++) {
					budgets.firstAttempt("payments");
				}
				assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
					.isThrownBy(() -> budgets.retry("payments", call, Retry.backoff(3, Duration.ofMillis(1)))
						.block(Duration.ofSeconds(10)));
				assertThat(downstream.requests).hasValue(3);
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class Services {

		@Bean
		ReactivePayments reactivePayments() {
			return new ReactivePayments(WebClient.create(downstream.url()));
		}

	}

	/** A WebClient call retried by {@code @Retryable}, within a budget. */
	public static class ReactivePayments {

		private final WebClient payments;

		ReactivePayments(WebClient payments) {
			this.payments = payments;
		}

		@Retryable(maxRetries = 3, delay = 1)
		@RetryBudget("payments")
		public Mono<String> charge(String order) {
			return this.payments.post().uri("/charges").bodyValue(order).retrieve().bodyToMono(String.class);
		}

	}

}
