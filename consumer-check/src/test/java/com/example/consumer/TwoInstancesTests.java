package com.example.consumer;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

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
		List<URI> uris = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			String port = instances.get(i % instances.size()).getEnvironment().getProperty("local.server.port");
			uris.add(URI.create("http://127.0.0.1:" + port + "/greet"));
		}
		return Concurrent.statuses(uris);
	}

}
