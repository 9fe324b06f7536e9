package dev.limiter.grpc;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A gRPC limit configured by a name that matches no service or method of the application,
 * or that names a limit that is not defined, stops the start naming what to fix.
 */
class GrpcStartupIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void aMisspelledMethodNameStopsTheStartNamingIt() {
		assertThatException()
			.isThrownBy(() -> start("limiter.limits.per-minute.threshold=1", "limiter.limits.per-minute.period=1m",
					"limiter.grpc.limits[greet.Greeter/SayHelo]=per-minute"))
			.withStackTraceContaining("limiter.grpc.limits[greet.Greeter/SayHelo] names no gRPC service or method");
	}

	@Test
	void aLimitThatIsNotDefinedStopsTheStartNamingIt() {
		assertThatException().isThrownBy(() -> start("limiter.grpc.limits[greet.Greeter/Plain]=undefined"))
			.withStackTraceContaining("undefined");
	}

	private static void start(String... properties) {
		new SpringApplicationBuilder(GrpcIntegrationTests.GreeterApplication.class).web(WebApplicationType.NONE)
			.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.properties(properties)
			.run()
			.close();
	}

}
