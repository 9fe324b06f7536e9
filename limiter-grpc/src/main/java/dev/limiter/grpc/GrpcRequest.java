package dev.limiter.grpc;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.key.RateLimitKeys;

/**
 * A gRPC call as Limiter's keys see it: the caller is the authenticated principal where
 * Spring Security sets one, else the peer's address; key expressions read the call's
 * metadata as {@code #metadata}.
 */
final class GrpcRequest implements SurfaceRequest {

	private static final boolean SECURITY = ClassUtils.isPresent(
			"org.springframework.security.core.context.SecurityContextHolder", GrpcRequest.class.getClassLoader());

	private final ServerCall<?, ?> call;

	private final Metadata metadata;

	GrpcRequest(ServerCall<?, ?> call, Metadata metadata) {
		this.call = call;
		this.metadata = metadata;
	}

	@Override
	public String caller() {
		return RateLimitKeys.caller(SECURITY ? Principal.name() : null, address());
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

	/** Read apart, so that a gRPC server without Spring Security never loads it. */
	private static final class Principal {

		static String name() {
			Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
			// the anonymous token is nobody: callers then go by address, as on the web
			return (authentication != null && authentication.isAuthenticated()
					&& !(authentication instanceof AnonymousAuthenticationToken)) ? authentication.getName() : null;
		}

	}

}
