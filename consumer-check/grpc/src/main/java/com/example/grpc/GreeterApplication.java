package com.example.grpc;

import com.google.protobuf.StringValue;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

import dev.limiter.annotation.RateLimit;

/**
 * A gRPC server with one limited service, written as gRPC's code generator writes one but
 * with protobuf's own {@code StringValue} messages, so that no .proto needs compiling.
 */
@SpringBootApplication
public class GreeterApplication {

	public static void main(String[] args) {
		SpringApplication.run(GreeterApplication.class, args);
	}

	/** {@code greet.Greeter/SayHello}: 4 a minute per name, as the README's example. */
	@Service
	public static class Greeter implements BindableService {

		public static final MethodDescriptor<StringValue, StringValue> SAY_HELLO = MethodDescriptor
			.<StringValue, StringValue>newBuilder()
			.setType(MethodDescriptor.MethodType.UNARY)
			.setFullMethodName(MethodDescriptor.generateFullMethodName("greet.Greeter", "SayHello"))
			.setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
			.setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
			.build();

		@RateLimit(threshold = 4, period = 60, key = "#greeting.value")
		public void sayHello(StringValue greeting, StreamObserver<StringValue> replies) {
			replies.onNext(StringValue.of("Hello, " + greeting.getValue() + "!"));
			replies.onCompleted();
		}

		@Override
		public ServerServiceDefinition bindService() {
			return ServerServiceDefinition.builder("greet.Greeter")
				.addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall(this::sayHello))
				.build();
		}

	}

}
