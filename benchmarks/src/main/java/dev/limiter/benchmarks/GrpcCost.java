package dev.limiter.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.StringValue;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

import dev.limiter.Algorithm;
import dev.limiter.annotation.RateLimit;
import dev.limiter.test.RedisServer;

/**
 * The CPU of a gRPC call with Limiter, in one JVM (client and server, Netty on loopback):
 * a trivial unary method without Limiter, the same admitted by a limit (a token bucket in
 * Redis), and refused by one (answered from the rejection cache, as a client that keeps
 * calling is). Runs alternate; process CPU time per call. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.GrpcCost <out.json> [calls]}
 */
public final class GrpcCost {

	private GrpcCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/grpc.json");
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		Map<String, Object> report = new LinkedHashMap<>();
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext server = new SpringApplicationBuilder(Application.class)
					.web(WebApplicationType.NONE)
					.properties("spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1",
							"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
					.run()) {
			int port = server.getBean(Port.class).port;
			ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
			try {
				List<Object> rows = new ArrayList<>();
				for (int round = 0; round < 3; round++) {
					for (MethodDescriptor<StringValue, StringValue> method : List.of(Service.FREE, Service.ADMITTED,
							Service.REFUSED)) {
						rows.add(run(channel, method, (round == 0) ? calls / 4 : calls, round == 0));
					}
				}
				report.put("calls", calls);
				report.put("runs", rows);
			}
			finally {
				channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
			}
		}
		ServerCost.write(out, report);
	}

	private static Map<String, Object> run(ManagedChannel channel, MethodDescriptor<StringValue, StringValue> method,
			int calls, boolean warmUp) {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		int refused = 0;
		StringValue request = StringValue.of("x");
		for (int i = 0; i < calls; i++) {
			try {
				ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, request);
			}
			catch (StatusRuntimeException ex) {
				refused++;
			}
		}
		double cpuMicros = (os.getProcessCpuTime() - cpu) / 1e3 / calls;
		double wallMicros = (System.nanoTime() - start) / 1e3 / calls;
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("method", method.getBareMethodName());
		row.put("warmUp", warmUp);
		row.put("calls", calls);
		row.put("refused", refused);
		row.put("cpuMicrosPerCall", cpuMicros);
		row.put("wallMicrosPerCall", wallMicros);
		System.out.printf("%-9s %s calls %6d refused %6d  CPU us/call %6.1f  wall us/call %6.1f%n",
				method.getBareMethodName(), warmUp ? "(warm-up)" : "         ", calls, refused, cpuMicros, wallMicros);
		return row;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(
			classes = { org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
					org.springframework.boot.grpc.server.autoconfigure.GrpcServerAutoConfiguration.class,
					org.springframework.boot.grpc.server.autoconfigure.GrpcServerServicesAutoConfiguration.class,
					dev.limiter.autoconfigure.LimiterAutoConfiguration.class,
					dev.limiter.grpc.LimiterGrpcAutoConfiguration.class })
	static class Application {

		// no SSL here; the gRPC server's factory asks for the bundles all the same
		@Bean
		org.springframework.boot.ssl.DefaultSslBundleRegistry sslBundles() {
			return new org.springframework.boot.ssl.DefaultSslBundleRegistry();
		}

		@Bean
		Service service() {
			return new Service();
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

	/** Three trivial unary methods: without Limiter, always admitted, always refused. */
	public static class Service implements BindableService {

		static final MethodDescriptor<StringValue, StringValue> FREE = method("Free");

		static final MethodDescriptor<StringValue, StringValue> ADMITTED = method("Admitted");

		static final MethodDescriptor<StringValue, StringValue> REFUSED = method("Refused");

		public void free(StringValue request, StreamObserver<StringValue> replies) {
			replies.onNext(request);
			replies.onCompleted();
		}

		@RateLimit(threshold = 1_000_000_000, period = 3600, key = "'all'", algorithm = Algorithm.TOKEN_BUCKET)
		public void admitted(StringValue request, StreamObserver<StringValue> replies) {
			replies.onNext(request);
			replies.onCompleted();
		}

		@RateLimit(threshold = 1, period = 3600, key = "'all'")
		public void refused(StringValue request, StreamObserver<StringValue> replies) {
			replies.onNext(request);
			replies.onCompleted();
		}

		@Override
		public ServerServiceDefinition bindService() {
			return ServerServiceDefinition.builder("bench.Service")
				.addMethod(FREE, ServerCalls.asyncUnaryCall(this::free))
				.addMethod(ADMITTED, ServerCalls.asyncUnaryCall(this::admitted))
				.addMethod(REFUSED, ServerCalls.asyncUnaryCall(this::refused))
				.build();
		}

		private static MethodDescriptor<StringValue, StringValue> method(String name) {
			return MethodDescriptor.<StringValue, StringValue>newBuilder()
				.setType(MethodDescriptor.MethodType.UNARY)
				.setFullMethodName(MethodDescriptor.generateFullMethodName("bench.Service", name))
				.setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
				.setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
				.build();
		}

	}

}
