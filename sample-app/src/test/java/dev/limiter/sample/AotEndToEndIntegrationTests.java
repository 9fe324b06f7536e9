package dev.limiter.sample;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample processed by Spring Boot's AOT ({@code process-aot} in the build)
 * and started with {@code -Dspring.aot.enabled=true}: every end-to-end test of the
 * sample, inherited, passes on the AOT-processed application too.
 */
class AotEndToEndIntegrationTests extends SampleAppEndToEndIntegrationTests {

	// The same two instances, from the AOT-generated code.
	@Override
	SampleInstances start(RedisServer redis) throws Exception {
		return SampleInstances.start(2, redis, List.of("-Dspring.aot.enabled=true"),
				"--limiter.limits.orders-burst.period=5s");
	}

	@Test
	void theInstancesRunTheAotProcessedApplication() throws Exception {
		assertThat(this.instances.log(0)).contains("Starting AOT-processed SampleApplication");
		assertThat(this.instances.log(1)).contains("Starting AOT-processed SampleApplication");
	}

}
