package dev.limiter.grpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.StringValue;
import com.google.rpc.QuotaFailure;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * gRPC services limited by Limiter: two Spring gRPC servers (Netty, free loopback ports)
 * on one real Redis, real grpc-java clients. Exact counts across instances for unary and
 * streaming calls, the refusal as a client decodes it, no service method entered for a
 * refused call, a client's retry policy honouring the wait, and methods limited from
 * YAML.
 */
class GrpcIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> servers = new ArrayList<>();

	private static final List<ManagedChannel> channels = new ArrayList<>();

	/** gRPC's Netty event loops and Lettuce's: nothing of Limiter may block on them. */
	static final java.util.function.Predicate<Thread> EVENT_LOOPS = (
			thread) -> (thread.getName().startsWith("grpc-") && thread.getName().contains("ELG"))
					|| (thread.getName().startsWith("lettuce-") && thread.getName().contains("EventLoop"));

	@BeforeAll
	static void start() {
		// BlockHound is global to the JVM: every test of this module runs under it
		NonBlockingThreads.watch(EVENT_LOOPS);
		for (int i = 0; i < 2; i++) {
			ConfigurableApplicationContext server = new SpringApplicationBuilder(GreeterApplication.class)
				.web(WebApplicationType.NONE)
				.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
						"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
						"limiter.rejection-cache.enabled=false", "limiter.limits.per-minute.threshold=1",
						"limiter.limits.per-minute.period=1m", "limiter.grpc.limits[greet.Greeter/Plain]=per-minute")
				.run();
			servers.add(server);
			int port = server.getBean(Port.class).port;
			channels.add(ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
		}
	}

	@AfterAll
	static void stop() throws InterruptedException {
		for (ManagedChannel channel : channels) {
			channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
		servers.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
		Greeter.entered.set(0);
	}

	@Test
	void aUnaryMethodAdmitsExactlyItsThresholdAcrossTwoServersAndTheServiceNeverSeesARefusedCall() {
		List<String> outcomes = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			try {
				outcomes.add(sayHello(channels.get(i % 2), "ann").getValue());
			}
			catch (StatusRuntimeException ex) {
				outcomes.add(ex.getStatus().getCode().name());
			}
		}
		assertThat(outcomes).containsExactly("Hello, ann!", "Hello, ann!", "Hello, ann!", "Hello, ann!",
				"RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED");
		assertThat(Greeter.entered).as("calls that reached the service").hasValue(4);
		assertThat(sayHello(channels.get(0), "bob").getValue()).as("another key").isEqualTo("Hello, bob!");
		assertThat(Thread.getAllStackTraces().keySet()).as("BlockHound watches gRPC's event loops")
			.anyMatch((thread) -> EVENT_LOOPS.test(thread) && thread.getName().startsWith("grpc-"));
	}

	@Test
	void aRefusalCarriesRetryInfoQuotaFailureAndTheQuotaInItsTrailers() {
		for (int i = 0; i < 4; i++) {
			sayHello(channels.get(0), "cy");
		}
		StatusRuntimeException refused = refusal(() -> sayHello(channels.get(1), "cy"));
		assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		com.google.rpc.Status status = StatusProto.fromThrowable(refused);
		assertThat(status).isNotNull();
		RetryInfo retry = status.getDetailsList()
			.stream()
			.filter((detail) -> detail.is(RetryInfo.class))
			.map((detail) -> unpack(detail, RetryInfo.class))
			.findFirst()
			.orElseThrow();
		Duration delay = Duration.ofSeconds(retry.getRetryDelay().getSeconds(), retry.getRetryDelay().getNanos());
		assertThat(delay).as("the exact wait of a 4-a-minute log")
			.isBetween(Duration.ofSeconds(50), Duration.ofSeconds(60));
		QuotaFailure quota = status.getDetailsList()
			.stream()
			.filter((detail) -> detail.is(QuotaFailure.class))
			.map((detail) -> unpack(detail, QuotaFailure.class))
			.findFirst()
			.orElseThrow();
		assertThat(quota.getViolations(0).getSubject()).isEqualTo("default");
		Metadata trailers = refused.getTrailers();
		assertThat(trailers.get(key("retry-after"))).isEqualTo(Long.toString((delay.toMillis() + 999) / 1000));
		assertThat(trailers.get(key("ratelimit-policy"))).isEqualTo("\"default\";q=4;w=60");
		assertThat(trailers.get(key("grpc-retry-pushback-ms"))).isEqualTo(Long.toString(delay.toMillis()));
	}

	@Test
	void aServerStreamIsOneCallKeyedByItsMetadata() {
		Metadata tenant = new Metadata();
		tenant.put(key("x-tenant"), "acme");
		io.grpc.Channel acme = ClientInterceptors.intercept(channels.get(0),
				MetadataUtils.newAttachHeadersInterceptor(tenant));
		Iterator<StringValue> numbers = ClientCalls.blockingServerStreamingCall(acme, Greeter.COUNT,
				CallOptions.DEFAULT, StringValue.of("go"));
		List<String> received = new ArrayList<>();
		numbers.forEachRemaining((value) -> received.add(value.getValue()));
		assertThat(received).containsExactly("1", "2", "3");
		io.grpc.Channel acmeAgain = ClientInterceptors.intercept(channels.get(1),
				MetadataUtils.newAttachHeadersInterceptor(tenant));
		assertThat(refusal(() -> ClientCalls
			.blockingServerStreamingCall(acmeAgain, Greeter.COUNT, CallOptions.DEFAULT, StringValue.of("go"))
			.hasNext()).getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(Greeter.entered).hasValue(1);
	}

	@Test
	void aClientStreamIsDecidedWhenItStartsUnderThePeersAddress() throws Exception {
		assertThat(collect(channels.get(0), "a", "b", "c")).isEqualTo("abc");
		assertThatExceptionOfType(StatusRuntimeException.class).isThrownBy(() -> collect(channels.get(1), "d"))
			.satisfies((ex) -> assertThat(ex.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
		assertThat(Greeter.entered).hasValue(1);
	}

	@Test
	void aMethodWithoutAnnotationsIsLimitedFromYamlByItsFullNameAndListedByTheEndpoint() {
		StringValue echoed = ClientCalls.blockingUnaryCall(channels.get(0), Greeter.PLAIN, CallOptions.DEFAULT,
				StringValue.of("x"));
		assertThat(echoed.getValue()).isEqualTo("x");
		assertThat(refusal(() -> ClientCalls.blockingUnaryCall(channels.get(1), Greeter.PLAIN, CallOptions.DEFAULT,
				StringValue.of("x")))
			.getStatus()
			.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		Map<String, Object> limits = servers.get(0).getBean(RateLimitsEndpoint.class).limits();
		assertThat(limits.toString()).contains("greet.Greeter/Plain").contains("Greeter.sayHello");
	}

	@Test
	void aClientsRetryPolicyWaitsAsTheServerSaysAndTheRetryIsAdmitted() {
		Map<String, Object> retryPolicy = Map.of("maxAttempts", 3.0, "initialBackoff", "0.01s", "maxBackoff", "0.01s",
				"backoffMultiplier", 1.0, "retryableStatusCodes", List.of("RESOURCE_EXHAUSTED"));
		Map<String, Object> serviceConfig = Map.of("methodConfig",
				List.of(Map.of("name", List.of(Map.of("service", Greeter.SERVICE)), "retryPolicy", retryPolicy)));
		int port = servers.get(0).getBean(Port.class).port;
		ManagedChannel retrying = ManagedChannelBuilder.forAddress("127.0.0.1", port)
			.usePlaintext()
			.defaultServiceConfig(serviceConfig)
			.enableRetry()
			.build();
		try {
			assertThat(ping(retrying)).isEqualTo("pong");
			// 1 a second: the second call is refused, and the client retries when the
			// server's grpc-retry-pushback-ms says, not after its own 10 ms backoff
			long start = System.nanoTime();
			assertThat(ping(retrying)).isEqualTo("pong");
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(took).as("waited for the turn the server named")
				.isBetween(Duration.ofMillis(500), Duration.ofSeconds(5));
			assertThat(Greeter.entered).as("the refused attempt never reached the service").hasValue(2);
		}
		finally {
			retrying.shutdownNow();
		}
	}

	private static String ping(io.grpc.Channel channel) {
		return ClientCalls.blockingUnaryCall(channel, Greeter.PING, CallOptions.DEFAULT, StringValue.of("ping"))
			.getValue();
	}

	private static StringValue sayHello(io.grpc.Channel channel, String name) {
		return ClientCalls.blockingUnaryCall(channel, Greeter.SAY_HELLO, CallOptions.DEFAULT, StringValue.of(name));
	}

	private static String collect(io.grpc.Channel channel, String... values) throws Exception {
		java.util.concurrent.CompletableFuture<String> result = new java.util.concurrent.CompletableFuture<>();
		StreamObserver<StringValue> requests = ClientCalls
			.asyncClientStreamingCall(channel.newCall(Greeter.COLLECT, CallOptions.DEFAULT), new StreamObserver<>() {

				@Override
				public void onNext(StringValue value) {
					result.complete(value.getValue());
				}

				@Override
				public void onError(Throwable ex) {
					result.completeExceptionally(ex);
				}

				@Override
				public void onCompleted() {
				}

			});
		for (String value : values) {
			requests.onNext(StringValue.of(value));
		}
		requests.onCompleted();
		try {
			return result.get(10, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw (ex.getCause() instanceof StatusRuntimeException status) ? status : ex;
		}
	}

	static StatusRuntimeException refusalOf(Runnable call) {
		return refusal(call);
	}

	private static StatusRuntimeException refusal(Runnable call) {
		try {
			call.run();
		}
		catch (StatusRuntimeException ex) {
			return ex;
		}
		throw new AssertionError("The call was admitted");
	}

	private static <T extends com.google.protobuf.Message> T unpack(com.google.protobuf.Any any, Class<T> type) {
		try {
			return any.unpack(type);
		}
		catch (com.google.protobuf.InvalidProtocolBufferException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Metadata.Key<String> key(String name) {
		return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class GreeterApplication {

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

		@Bean
		Port port() {
			return new Port();
		}

	}

	/** The port the server listens on, once it has started. */
	static class Port implements ApplicationListener<GrpcServerStartedEvent> {

		volatile int port;

		@Override
		public void onApplicationEvent(GrpcServerStartedEvent event) {
			this.port = event.getPort();
		}

	}

}
