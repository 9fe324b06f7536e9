package dev.limiter.grpc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The README's YAML, read from the README as written, limits the method it names.
 */
class ReadmeIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void theReadmesYamlLimitsTheMethodItNames() throws Exception {
		NonBlockingThreads.watch(GrpcIntegrationTests.EVENT_LOOPS);
		redis.flushAll();
		String readme = Files.readString(Path.of("README.md"));
		int start = readme.indexOf("```yaml") + 7;
		String yaml = readme.substring(start, readme.indexOf("```", start));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		try (ConfigurableApplicationContext server = new SpringApplicationBuilder(
				GrpcIntegrationTests.GreeterApplication.class)
			.web(WebApplicationType.NONE)
			.initializers((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.run()) {
			int port = server.getBean(GrpcIntegrationTests.Port.class).port;
			ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
			try {
				assertThat(ClientCalls
					.blockingUnaryCall(channel, Greeter.PLAIN, CallOptions.DEFAULT, StringValue.of("once"))
					.getValue()).isEqualTo("once");
				assertThatExceptionOfType(StatusRuntimeException.class)
					.isThrownBy(() -> ClientCalls.blockingUnaryCall(channel, Greeter.PLAIN, CallOptions.DEFAULT,
							StringValue.of("twice")))
					.satisfies((ex) -> assertThat(ex.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
			}
			finally {
				channel.shutdownNow();
			}
		}
	}

}
