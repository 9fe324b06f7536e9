package dev.limiter.grpc;

import java.util.concurrent.atomic.AtomicInteger;

import com.google.protobuf.StringValue;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import dev.limiter.annotation.RateLimit;

/**
 * A gRPC service written as gRPC's code generator writes one, with protobuf's own
 * {@code StringValue} messages so that no .proto needs compiling: one method per kind of
 * call, and a counter of the calls that reached each.
 */
public class Greeter implements BindableService {

	static final String SERVICE = "greet.Greeter";

	static final MethodDescriptor<StringValue, StringValue> SAY_HELLO = method("SayHello",
			MethodDescriptor.MethodType.UNARY);

	static final MethodDescriptor<StringValue, StringValue> COUNT = method("Count",
			MethodDescriptor.MethodType.SERVER_STREAMING);

	static final MethodDescriptor<StringValue, StringValue> COLLECT = method("Collect",
			MethodDescriptor.MethodType.CLIENT_STREAMING);

	static final MethodDescriptor<StringValue, StringValue> CHAT = method("Chat",
			MethodDescriptor.MethodType.BIDI_STREAMING);

	static final MethodDescriptor<StringValue, StringValue> PLAIN = method("Plain", MethodDescriptor.MethodType.UNARY);

	static final MethodDescriptor<StringValue, StringValue> PING = method("Ping", MethodDescriptor.MethodType.UNARY);

	static final AtomicInteger entered = new AtomicInteger();

	@RateLimit(threshold = 1, period = 1, key = "'ping'")
	public void ping(StringValue request, StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		replies.onNext(StringValue.of("pong"));
		replies.onCompleted();
	}

	@RateLimit(threshold = 4, period = 60, key = "#greeting.value")
	public void sayHello(StringValue greeting, StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		replies.onNext(StringValue.of("Hello, " + greeting.getValue() + "!"));
		replies.onCompleted();
	}

	@RateLimit(threshold = 1, period = 60, key = "#metadata.get('x-tenant')")
	public void count(StringValue request, StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		for (int i = 1; i <= 3; i++) {
			replies.onNext(StringValue.of(Integer.toString(i)));
		}
		replies.onCompleted();
	}

	@RateLimit(threshold = 1, period = 60)
	public StreamObserver<StringValue> collect(StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		return new StreamObserver<>() {

			private final StringBuilder collected = new StringBuilder();

			@Override
			public void onNext(StringValue value) {
				this.collected.append(value.getValue());
			}

			@Override
			public void onError(Throwable ex) {
			}

			@Override
			public void onCompleted() {
				replies.onNext(StringValue.of(this.collected.toString()));
				replies.onCompleted();
			}

		};
	}

	@RateLimit(threshold = 1, period = 60)
	public StreamObserver<StringValue> chat(StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		return new StreamObserver<>() {

			@Override
			public void onNext(StringValue value) {
				replies.onNext(value);
			}

			@Override
			public void onError(Throwable ex) {
			}

			@Override
			public void onCompleted() {
				replies.onCompleted();
			}

		};
	}

	/** Limited from YAML only: limiter.grpc.limits[greet.Greeter/Plain]. */
	public void plain(StringValue request, StreamObserver<StringValue> replies) {
		entered.incrementAndGet();
		replies.onNext(request);
		replies.onCompleted();
	}

	@Override
	public ServerServiceDefinition bindService() {
		return ServerServiceDefinition.builder(SERVICE)
			.addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall(this::sayHello))
			.addMethod(COUNT, ServerCalls.asyncServerStreamingCall(this::count))
			.addMethod(COLLECT, ServerCalls.asyncClientStreamingCall(this::collect))
			.addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(this::chat))
			.addMethod(PLAIN, ServerCalls.asyncUnaryCall(this::plain))
			.addMethod(PING, ServerCalls.asyncUnaryCall(this::ping))
			.build();
	}

	private static MethodDescriptor<StringValue, StringValue> method(String name, MethodDescriptor.MethodType type) {
		return MethodDescriptor.<StringValue, StringValue>newBuilder()
			.setType(type)
			.setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
			.setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
			.setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
			.build();
	}

}
