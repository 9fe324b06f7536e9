package com.example.consumer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the application against one real Redis, configured the way a user
 * would (only spring.data.redis.*): a burst across both admits the limit once, not once
 * per instance.
 */
class TwoInstancesTests {

	@Test
	void aBurstAcrossTwoInstancesAdmitsTheLimitOnce() throws Exception {
		System.out.println("Consumer check on Spring Boot " + SpringBootVersion.getVersion());
		try (RedisServer redis = RedisServer.start()) {
			List<ConfigurableApplicationContext> instances = new ArrayList<>();
			try {
				for (int i = 0; i < 2; i++) {
					instances.add(SpringApplication.run(ConsumerApplication.class, "--server.port=0",
							"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port()));
				}
				List<Integer> statuses = burst(instances, 100);
				assertThat(statuses).filteredOn((status) -> status == 200).hasSize(5);
				assertThat(statuses).filteredOn((status) -> status == 429).hasSize(95);
				assertThat(redis.command("KEYS", "limiter:*")).asList().hasSize(1);
			}
			finally {
				instances.forEach(ConfigurableApplicationContext::close);
			}
		}
	}

	private static List<Integer> burst(List<ConfigurableApplicationContext> instances, int calls) throws Exception {
		HttpClient http = HttpClient.newHttpClient();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Callable<Integer>> requests = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				String port = instances.get(i % instances.size()).getEnvironment().getProperty("local.server.port");
				URI uri = URI.create("http://127.0.0.1:" + port + "/greet");
				requests.add(() -> http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
					.statusCode());
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<Integer> status : executor.invokeAll(requests)) {
				statuses.add(status.get());
			}
			return statuses;
		}
		finally {
			executor.shutdownNow();
		}
	}

}
