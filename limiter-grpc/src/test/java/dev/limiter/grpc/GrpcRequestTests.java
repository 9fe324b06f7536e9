package dev.limiter.grpc;

import java.net.InetSocketAddress;
import java.util.List;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who a gRPC call's caller is: its principal, and never Spring Security's anonymous
 * token, which would put every anonymous client on one key.
 */
class GrpcRequestTests {

	@AfterEach
	void nobody() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void anAuthenticatedCallerIsItsPrincipal() {
		SecurityContextHolder.getContext()
			.setAuthentication(new TestingAuthenticationToken("alice", null, "ROLE_USER"));
		assertThat(new GrpcRequest(call("10.0.0.1"), new Metadata()).caller()).isEqualTo("u:alice");
	}

	@Test
	void anAnonymousCallerIsItsAddress() {
		SecurityContextHolder.getContext()
			.setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
					List.of(new SimpleGrantedAuthority("ROLE_ANONYMOUS"))));
		assertThat(new GrpcRequest(call("10.0.0.1"), new Metadata()).caller()).isEqualTo("ip:10.0.0.1");
	}

	private static ServerCall<Object, Object> call(String address) {
		return new ServerCall<>() {

			@Override
			public void request(int numMessages) {
			}

			@Override
			public void sendHeaders(Metadata headers) {
			}

			@Override
			public void sendMessage(Object message) {
			}

			@Override
			public void close(Status status, Metadata trailers) {
			}

			@Override
			public boolean isCancelled() {
				return false;
			}

			@Override
			public MethodDescriptor<Object, Object> getMethodDescriptor() {
				return null;
			}

			@Override
			public Attributes getAttributes() {
				return Attributes.newBuilder()
					.set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, new InetSocketAddress(address, 5000))
					.build();
			}

		};
	}

}
