package dev.limiter.grpc;

import java.time.Duration;

import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;

import dev.limiter.Decision;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Applies {@code limiter.clients.<name>} to gRPC channels, as to {@code RestClient} and
 * {@code WebClient}: a call to a host of a client's quota waits for its turn across every
 * instance (on the thread that starts it), or fails with {@code UNAVAILABLE} when no turn
 * comes within {@code max-wait}; a {@code RESOURCE_EXHAUSTED} or {@code UNAVAILABLE} from
 * the server with {@code google.rpc.RetryInfo} (or {@code grpc-retry-pushback-ms}) holds
 * every instance's calls to it until then.
 */
public final class GrpcClientRateLimitInterceptor implements ClientInterceptor {

	private final OutgoingQuotas quotas;

	/**
	 * Create the interceptor.
	 * @param quotas the clients' quotas
	 */
	public GrpcClientRateLimitInterceptor(OutgoingQuotas quotas) {
		this.quotas = quotas;
	}

	@Override
	public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
		OutgoingQuota quota = this.quotas.forHost(host(next.authority()));
		if (quota == null) {
			return next.newCall(method, options);
		}
		return new PacedCall<>(next.newCall(method, options), quota);
	}

	/**
	 * The host of an authority such as {@code api.example.com:443} or {@code [::1]:9090}.
	 */
	static String host(String authority) {
		if (authority == null) {
			return null;
		}
		if (authority.startsWith("[")) {
			int end = authority.indexOf(']');
			return (end > 0) ? authority.substring(1, end) : authority;
		}
		int colon = authority.lastIndexOf(':');
		return (colon > 0) ? authority.substring(0, colon) : authority;
	}

	/** Hold the client when the server said when to come back. */
	private void learn(OutgoingQuota quota, Status status, Metadata trailers) {
		if (!GrpcAnswers.isRefusal(status)) {
			return;
		}
		com.google.rpc.Status details = StatusProto.fromStatusAndTrailers(status, trailers);
		if (details != null) {
			for (com.google.protobuf.Any detail : details.getDetailsList()) {
				if (detail.is(RetryInfo.class)) {
					try {
						com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
						this.quotas.hold(quota, Duration.ofSeconds(delay.getSeconds(), delay.getNanos()),
								"gRPC RetryInfo");
						return;
					}
					catch (com.google.protobuf.InvalidProtocolBufferException ex) {
						// not a RetryInfo after all: the pushback, if any, says when
					}
				}
			}
		}
		String pushback = (trailers != null) ? trailers.get(GrpcAnswers.RETRY_PUSHBACK) : null;
		if (pushback != null) {
			try {
				long millis = Long.parseLong(pushback.trim());
				if (millis > 0) {
					this.quotas.hold(quota, Duration.ofMillis(millis), "grpc-retry-pushback-ms");
				}
			}
			catch (NumberFormatException ex) {
				// a pushback that is no number holds nothing
			}
		}
	}

	/** A call that waits for its turn when it starts, and counts until it closes. */
	private final class PacedCall<Q, R> extends SimpleForwardingClientCall<Q, R> {

		private final OutgoingQuota quota;

		private volatile boolean refused;

		PacedCall(ClientCall<Q, R> call, OutgoingQuota quota) {
			super(call);
			this.quota = quota;
		}

		@Override
		public void start(Listener<R> listener, Metadata headers) {
			Decision turn;
			try {
				turn = GrpcClientRateLimitInterceptor.this.quotas.awaitTurn(this.quota);
			}
			catch (RateLimitUnavailableException ex) {
				this.refused = true;
				listener.onClose(Status.UNAVAILABLE.withDescription(ex.getMessage()).withCause(ex), new Metadata());
				return;
			}
			super.start(new SimpleForwardingClientCallListener<>(listener) {

				@Override
				public void onClose(Status status, Metadata trailers) {
					try {
						learn(PacedCall.this.quota, status, trailers);
						GrpcClientRateLimitInterceptor.this.quotas.done(turn);
					}
					finally {
						super.onClose(status, trailers);
					}
				}

			}, headers);
		}

		@Override
		public void request(int numMessages) {
			if (!this.refused) {
				super.request(numMessages);
			}
		}

		@Override
		public void sendMessage(Q message) {
			if (!this.refused) {
				super.sendMessage(message);
			}
		}

		@Override
		public void halfClose() {
			if (!this.refused) {
				super.halfClose();
			}
		}

		@Override
		public void cancel(String message, Throwable cause) {
			if (!this.refused) {
				super.cancel(message, cause);
			}
		}

	}

}
