package com.example.grpc;

import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application built from the README's block answers over gRPC: a name's fifth call
 * in a minute is RESOURCE_EXHAUSTED with the pushback gRPC's retry policy honours.
 */
class GrpcConsumerTests {

	@Test
	void theFifthGreetingOfANameInAMinuteIsResourceExhausted() throws Exception {
		try (RedisServer redis = RedisServer.start()) {
			List<Integer> ports = new ArrayList<>();
			SpringApplication application = new SpringApplication(GreeterApplication.class);
			application.addListeners((GrpcServerStartedEvent started) -> ports.add(started.getPort()));
			try (ConfigurableApplicationContext context = application.run("--spring.grpc.server.port=0",
					"--spring.grpc.server.address=127.0.0.1", "--spring.data.redis.host=127.0.0.1",
					"--spring.data.redis.port=" + redis.port())) {
				ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", ports.get(0))
					.usePlaintext()
					.build();
				try {
					for (int i = 0; i < 4; i++) {
						assertThat(greet(channel, "ada").getValue()).isEqualTo("Hello, ada!");
					}
					StatusRuntimeException refused = null;
					try {
						greet(channel, "ada");
					}
					catch (StatusRuntimeException ex) {
						refused = ex;
					}
					assertThat(refused).isNotNull();
					assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
					String pushback = refused.getTrailers()
						.get(Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER));
					assertThat(Long.parseLong(pushback)).isBetween(1L, 60_000L);
					assertThat(greet(channel, "grace").getValue()).as("another name's quota")
						.isEqualTo("Hello, grace!");
				}
				finally {
					channel.shutdownNow();
				}
			}
		}
	}

	private static StringValue greet(ManagedChannel channel, String name) {
		return ClientCalls.blockingUnaryCall(channel, GreeterApplication.Greeter.SAY_HELLO, CallOptions.DEFAULT,
				StringValue.of(name));
	}

}
