package dev.limiter.grpc;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.key.RateLimitKeyResolver;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who a gRPC call is, by the rule every surface follows: the application's own
 * {@link RateLimitKeyResolver} where it has one, before the principal or the peer's
 * address. Over a real server and a real Redis: the call counts under the resolver's
 * caller.
 */
class GrpcCallerIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void theApplicationsKeyResolverNamesAGrpcCaller() throws Exception {
		redis.flushAll();
		try (ConfigurableApplicationContext server = new SpringApplicationBuilder(
				GrpcIntegrationTests.GreeterApplication.class, TenantResolver.class)
			.web(WebApplicationType.NONE)
			.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"limiter.key-prefix=callers:")
			.run()) {
			ManagedChannel channel = ManagedChannelBuilder
				.forAddress("127.0.0.1", server.getBean(GrpcIntegrationTests.Port.class).port)
				.usePlaintext()
				.build();
			try {
				// Collect is limited by its own @RateLimit without a key expression
				CompletableFuture<String> collected = new CompletableFuture<>();
				StreamObserver<StringValue> requests = ClientCalls.asyncClientStreamingCall(
						channel.newCall(Greeter.COLLECT, CallOptions.DEFAULT), new StreamObserver<>() {

							@Override
							public void onNext(StringValue value) {
								collected.complete(value.getValue());
							}

							@Override
							public void onError(Throwable ex) {
								collected.completeExceptionally(ex);
							}

							@Override
							public void onCompleted() {
							}

						});
				requests.onNext(StringValue.of("a"));
				requests.onCompleted();
				assertThat(collected.get(10, TimeUnit.SECONDS)).isEqualTo("a");
			}
			finally {
				channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
			}
		}
		List<?> keys = (List<?>) redis.command("KEYS", "callers:*");
		assertThat(keys).map(String::valueOf)
			.as("the call's counter, under the resolver's caller")
			.anyMatch((key) -> key.contains("Greeter.collect") && key.contains(":t:acme"))
			.noneMatch((key) -> key.contains(":ip:"));
	}

	@Configuration(proxyBeanMethods = false)
	static class TenantResolver {

		@Bean
		RateLimitKeyResolver tenantKeyResolver() {
			return (invocation) -> "t:acme";
		}

	}

}
