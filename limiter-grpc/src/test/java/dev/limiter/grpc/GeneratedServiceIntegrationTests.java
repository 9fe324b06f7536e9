package dev.limiter.grpc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.annotation.RateLimit;
import dev.limiter.grpc.GrpcIntegrationTests.Port;
import dev.limiter.grpc.generated.Greeting;
import dev.limiter.grpc.generated.GreetingsGrpc;
import dev.limiter.grpc.generated.Reply;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service written the standard way: compiled from a .proto by protoc, extending the
 * generated {@code GreetingsImplBase} (whose {@code bindService()} is final), a Spring
 * bean with {@code @RateLimit} methods and so a CGLIB proxy, keyed by a message field.
 * grpc-java's generated handler calls the proxy, whose advisor runs after the interceptor
 * decided the call: each call must still be decided once.
 */
class GeneratedServiceIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> servers = new ArrayList<>();

	private static final List<ManagedChannel> channels = new ArrayList<>();

	@BeforeAll
	static void start() {
		for (int i = 0; i < 2; i++) {
			ConfigurableApplicationContext server = new SpringApplicationBuilder(GreetingsApplication.class)
				.web(WebApplicationType.NONE)
				.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
						"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
						"limiter.key-prefix=generated:")
				.run();
			servers.add(server);
			channels.add(ManagedChannelBuilder.forAddress("127.0.0.1", server.getBean(Port.class).port)
				.usePlaintext()
				.build());
		}
	}

	@AfterAll
	static void stop() throws InterruptedException {
		for (ManagedChannel channel : channels) {
			channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
		servers.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aGeneratedServiceBehindAProxyIsDecidedOncePerCallAcrossTwoServers() throws Exception {
		assertThat(AopUtils.isCglibProxy(servers.get(0).getBean(Greetings.class))).as("the service is proxied")
			.isTrue();
		ExecutorService clients = Executors.newFixedThreadPool(7);
		try {
			List<Future<String>> ann = new ArrayList<>();
			List<Future<String>> bob = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				ann.add(clients.submit(greet(channels.get(i % 2), "ann")));
			}
			for (int i = 0; i < 3; i++) {
				bob.add(clients.submit(greet(channels.get(i % 2), "bob")));
			}
			assertThat(outcomes(ann)).as("four calls for one name, 3 per 10 s")
				.containsOnly("OK", "RESOURCE_EXHAUSTED")
				.filteredOn("OK"::equals)
				.hasSize(3);
			assertThat(outcomes(ann)).filteredOn("RESOURCE_EXHAUSTED"::equals).hasSize(1);
			assertThat(outcomes(bob)).as("another name's three calls").containsExactly("OK", "OK", "OK");
			assertThat(Greetings.entered).as("calls the service ran").hasValue(6);
		}
		finally {
			clients.shutdownNow();
		}
	}

	private static Callable<String> greet(ManagedChannel channel, String name) {
		return () -> {
			try {
				Reply reply = GreetingsGrpc.newBlockingStub(channel)
					.withDeadlineAfter(10, TimeUnit.SECONDS)
					.greet(Greeting.newBuilder().setValue(name).build());
				assertThat(reply.getText()).isEqualTo("Hello, " + name + "!");
				return "OK";
			}
			catch (StatusRuntimeException ex) {
				return ex.getStatus().getCode().name();
			}
		};
	}

	private static List<String> outcomes(List<Future<String>> calls) throws Exception {
		List<String> outcomes = new ArrayList<>();
		for (Future<String> call : calls) {
			outcomes.add(call.get(20, TimeUnit.SECONDS));
		}
		return outcomes;
	}

	/** The service as the module's README shows it, extending the generated base. */
	static class Greetings extends GreetingsGrpc.GreetingsImplBase {

		static final AtomicInteger entered = new AtomicInteger();

		@Override
		@RateLimit(name = "greet-user", threshold = 3, period = 10, key = "#greeting.value")
		public void greet(Greeting greeting, StreamObserver<Reply> replies) {
			entered.incrementAndGet();
			replies.onNext(Reply.newBuilder().setText("Hello, " + greeting.getValue() + "!").build());
			replies.onCompleted();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class GreetingsApplication {

		@Bean
		Greetings greetings() {
			return new Greetings();
		}

		@Bean
		Port port() {
			return new Port();
		}

	}

}
