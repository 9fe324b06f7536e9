package dev.limiter.grpc;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.internal.key.Callers;

/**
 * A gRPC call as Limiter's keys see it: the caller as {@link Callers} finds it (the
 * authenticated principal where Spring Security sets one, else the peer's address); key
 * expressions read the call's metadata as {@code #metadata}.
 */
final class GrpcRequest implements SurfaceRequest {

	private final ServerCall<?, ?> call;

	private final Metadata metadata;

	GrpcRequest(ServerCall<?, ?> call, Metadata metadata) {
		this.call = call;
		this.metadata = metadata;
	}

	@Override
	public String caller() {
		return Callers.caller(Callers.principal(), address());
	}

	@Override
	public Object variable(String name) {
		return "metadata".equals(name) ? new GrpcMetadata(this.metadata) : null;
	}

	private String address() {
		SocketAddress remote = this.call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
		if (remote instanceof InetSocketAddress inet) {
			return (inet.getAddress() != null) ? inet.getAddress().getHostAddress() : inet.getHostString();
		}
		return String.valueOf(remote);
	}

}
