package dev.limiter.grpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.GrpcChannelFactory;

import dev.limiter.internal.actuate.ClientMetrics;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code limiter.clients.<name>} on gRPC channels made by Spring gRPC's channel factory:
 * a real gRPC server, a client application with no code of its own beyond the channel,
 * one real Redis.
 */
class GrpcClientIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static ConfigurableApplicationContext server;

	private static ConfigurableApplicationContext client;

	private static ManagedChannel channel;

	@BeforeAll
	static void start() {
		NonBlockingThreads.watch(GrpcIntegrationTests.EVENT_LOOPS);
		server = new SpringApplicationBuilder(GrpcIntegrationTests.GreeterApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"limiter.rejection-cache.enabled=false", "limiter.key-prefix=server:")
			.run();
		client = new SpringApplicationBuilder(ClientApplication.class).web(WebApplicationType.NONE)
			.properties("spring.grpc.server.enabled=false", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.clients.greeter.hosts=127.0.0.1",
					"limiter.clients.greeter.threshold=2", "limiter.clients.greeter.period=1s")
			.run();
		int port = server.getBean(GrpcIntegrationTests.Port.class).port;
		channel = client.getBean(GrpcChannelFactory.class).createChannel("static://127.0.0.1:" + port);
	}

	@AfterAll
	static void stop() {
		channel.shutdownNow();
		client.close();
		server.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
		Greeter.entered.set(0);
	}

	@Test
	void callsThroughTheChannelFactoryArePacedByTheClientsQuota() {
		long waited = waits().count();
		List<String> echoed = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			echoed
				.add(ClientCalls.blockingUnaryCall(channel, Greeter.PLAIN, CallOptions.DEFAULT, StringValue.of("c" + i))
					.getValue());
		}
		assertThat(echoed).containsExactly("c0", "c1", "c2", "c3", "c4", "c5");
		// 6 calls at 2 a second: the third and the fifth at least wait their turn, as
		// Limiter counts its own waits
		assertThat(waits().count() - waited).as("calls that waited their turn").isGreaterThanOrEqualTo(2);
	}

	@Test
	void aServersRetryInfoHoldsTheClientUntilThen() {
		assertThat(ping()).isEqualTo("pong");
		// the server allows 1 a second: its RESOURCE_EXHAUSTED names the wait, and the
		// client holds its calls until then instead of sending them to be refused
		assertThat(GrpcIntegrationTests.refusalOf(() -> ping()).getStatus().getCode())
			.isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
		long waited = waits().count();
		assertThat(ping()).isEqualTo("pong");
		assertThat(waits().count() - waited).as("held for the server's wait, then sent").isOne();
		assertThat(Greeter.entered).hasValue(2);
	}

	private static String ping() {
		return ClientCalls.blockingUnaryCall(channel, Greeter.PING, CallOptions.DEFAULT, StringValue.of("ping"))
			.getValue();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ClientApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	private static Timer waits() {
		return client.getBean(MeterRegistry.class).get(ClientMetrics.WAITS).tag("client", "greeter").timer();
	}

}
