package dev.limiter.retry;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What an operator sees of a retry budget, over HTTP: {@code GET /actuator/ratelimits}
 * lists it under {@code retryBudgets}, and {@code limiter.retry.budget} counts the
 * retries it allowed and denied.
 */
class RetryBudgetEndpointIntegrationTests {

	private static RedisServer redis;

	private static Downstream downstream;

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() throws Exception {
		redis = RedisServer.start();
		downstream = new Downstream();
		context = new SpringApplicationBuilder(BudgetedApplication.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "payments.url=" + downstream.url(),
					"management.endpoints.web.exposure.include=ratelimits", "limiter.retry-budgets.payments.ratio=0.5",
					"limiter.retry-budgets.payments.min-per-second=0")
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
		downstream.close();
		redis.close();
	}

	@Test
	void theListingShowsEachBudgetAndTheMetricsCountItsRetries() throws Exception {
		RetryBudgetIntegrationTests.FastPayments payments = context
			.getBean(RetryBudgetIntegrationTests.FastPayments.class);
		// 4 calls to a failing downstream, half their first attempts pay for retries: the
		// second call's first retry and the fourth's; the first, third and the two
		// calls' second retries are denied
		for (int i = 0; i < 4; i++) {
			assertThatExceptionOfType(HttpServerErrorException.class).isThrownBy(() -> payments.charge("order"));
		}
		assertThat(downstream.requests).hasValue(4 + 2);

		String port = context.getEnvironment().getProperty("local.server.port");
		HttpResponse<String> listing = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/ratelimits"))
				.timeout(Duration.ofSeconds(10))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(listing.statusCode()).isEqualTo(200);
		@SuppressWarnings("unchecked")
		Map<String, Map<String, Object>> budgets = (Map<String, Map<String, Object>>) new ObjectMapper()
			.readValue(listing.body(), Map.class)
			.get("retryBudgets");
		assertThat(budgets).containsOnlyKeys("payments");
		assertThat(budgets.get("payments")).containsEntry("ratio", 0.5)
			.containsEntry("minPerSecond", 0)
			.containsEntry("retriesLeft", 0)
			.containsEntry("counted", "every instance")
			.containsEntry("allowed", 2)
			.containsEntry("denied", 4);

		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get("limiter.retry.budget")
			.tags("budget", "payments", "outcome", "allowed")
			.functionCounter()
			.count()).isEqualTo(2);
		assertThat(meters.get("limiter.retry.budget")
			.tags("budget", "payments", "outcome", "denied")
			.functionCounter()
			.count()).isEqualTo(4);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableResilientMethods
	static class BudgetedApplication {

		@Bean
		RetryBudgetIntegrationTests.FastPayments fastPayments(
				@org.springframework.beans.factory.annotation.Value("${payments.url}") String url) {
			return new RetryBudgetIntegrationTests.FastPayments(RestClient.create(url));
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
