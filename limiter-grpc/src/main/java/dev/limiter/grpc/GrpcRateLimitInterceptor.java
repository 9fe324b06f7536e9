package dev.limiter.grpc;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.grpc.BindableService;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.SurfaceCalls;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Limits the calls of gRPC services through Limiter's decision pipeline: each call of a
 * limited method is decided before the method runs (as soon as its request message is
 * known when its key reads it, else when it starts), refused calls are closed with
 * {@code RESOURCE_EXHAUSTED} or {@code UNAVAILABLE} and never reach the service, and an
 * admitted call ends when it closes or is cancelled (slots in flight given back, a
 * {@code refundOn} failure refunded). A stream is one call.
 * <p>
 * Spring gRPC applications get it as a global server interceptor; other gRPC servers add
 * it by hand.
 */
public final class GrpcRateLimitInterceptor implements ServerInterceptor {

	private final SurfaceCalls calls;

	private final GrpcAnswers answers;

	private volatile GrpcOperations operations = GrpcOperations.empty();

	/**
	 * Create the interceptor.
	 * @param calls decides the calls
	 * @param headers writes the quota into the calls' metadata
	 */
	public GrpcRateLimitInterceptor(SurfaceCalls calls, RateLimitHeaders headers) {
		this.calls = calls;
		this.answers = new GrpcAnswers(headers);
	}

	/**
	 * Find the limits of the services' methods; once, with every service.
	 * @param services the application's gRPC services
	 * @param configured the named limits of methods and services by full name
	 * ({@code limiter.grpc.limits})
	 * @throws IllegalArgumentException naming what to fix
	 */
	public void limit(Collection<BindableService> services, Map<String, List<String>> configured) {
		this.operations = GrpcOperations.of(this.calls, services, configured);
	}

	@Override
	public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
			ServerCallHandler<Q, R> next) {
		GrpcOperations.GrpcOperation limited = this.operations.get(call.getMethodDescriptor().getFullMethodName());
		if (limited == null) {
			return next.startCall(call, headers);
		}
		GrpcRequest request = new GrpcRequest(call, headers);
		if (!limited.readsMessage()) {
			LimitedCall<Q, R> limitedCall = new LimitedCall<>(call);
			if (!limitedCall.decide(limited, request, null)) {
				return new ServerCall.Listener<>() {
				};
			}
			return limitedCall.start(next, headers);
		}
		return new FirstMessage<>(call, headers, next, limited, request);
	}

	/**
	 * A call whose key reads its request: nothing reaches the service until the first
	 * message has decided it, then the service's listener hears everything.
	 */
	private final class FirstMessage<Q, R> extends ServerCall.Listener<Q> {

		private final LimitedCall<Q, R> call;

		private final Metadata headers;

		private final ServerCallHandler<Q, R> next;

		private final GrpcOperations.GrpcOperation limited;

		private final GrpcRequest request;

		private ServerCall.Listener<Q> delegate;

		private boolean refused;

		FirstMessage(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next,
				GrpcOperations.GrpcOperation limited, GrpcRequest request) {
			this.call = new LimitedCall<>(call);
			this.headers = headers;
			this.next = next;
			this.limited = limited;
			this.request = request;
			// the first message is asked for here, as a service's handler would
			call.request(1);
		}

		@Override
		public void onMessage(Q message) {
			if (this.refused) {
				return;
			}
			if (this.delegate == null) {
				if (!this.call.decide(this.limited, this.request, message)) {
					this.refused = true;
					return;
				}
				start();
			}
			this.delegate.onMessage(message);
		}

		@Override
		public void onHalfClose() {
			if (this.delegate == null && !this.refused) {
				// no message at all: decided without one, and the service answers it
				if (!this.call.decide(this.limited, this.request, null)) {
					this.refused = true;
					return;
				}
				start();
			}
			if (this.delegate != null) {
				this.delegate.onHalfClose();
			}
		}

		private void start() {
			// the service's handler asks for the message this listener already took
			this.call.skipFirstRequest();
			this.delegate = this.call.start(this.next, this.headers);
		}

		@Override
		public void onCancel() {
			if (this.delegate != null) {
				this.delegate.onCancel();
			}
		}

		@Override
		public void onComplete() {
			if (this.delegate != null) {
				this.delegate.onComplete();
			}
		}

		@Override
		public void onReady() {
			if (this.delegate != null) {
				this.delegate.onReady();
			}
		}

	}

	/**
	 * The call as the service sees it: decided once, its quota in its response headers,
	 * ended once when it closes or is cancelled.
	 */
	private final class LimitedCall<Q, R> extends SimpleForwardingServerCall<Q, R> {

		private volatile CallHandle decided;

		private boolean skipRequest;

		LimitedCall(ServerCall<Q, R> call) {
			super(call);
		}

		boolean decide(GrpcOperations.GrpcOperation limited, GrpcRequest request, Object message) {
			CallHandle prepared = GrpcRateLimitInterceptor.this.calls.prepare(limited.operation(),
					limited.targetClass(), new Object[] { message, null }, request);
			if (prepared == null) {
				return true;
			}
			boolean admitted;
			try {
				admitted = prepared.decide();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				delegate().close(Status.CANCELLED.withDescription("Interrupted while waiting for a turn"),
						new Metadata());
				return false;
			}
			if (!admitted) {
				StatusRuntimeException refusal = GrpcRateLimitInterceptor.this.answers.refusal(prepared.rejection());
				delegate().close(refusal.getStatus(), refusal.getTrailers());
				return false;
			}
			this.decided = prepared;
			return true;
		}

		/** The service's handler asks for the message already taken: not twice. */
		void skipFirstRequest() {
			this.skipRequest = true;
		}

		@Override
		public void request(int numMessages) {
			if (this.skipRequest) {
				this.skipRequest = false;
				if (numMessages > 1) {
					super.request(numMessages - 1);
				}
				return;
			}
			super.request(numMessages);
		}

		/**
		 * Start the service's handler on the decided call. grpc-java's handlers run the
		 * service's method when the call starts (streams from the client) or when the
		 * client half-closes (a single request): there the method is marked as decided,
		 * so that a proxy between the handler and the service (Spring AOP's, around a
		 * service extending a generated {@code *ImplBase}) does not decide it again.
		 */
		ServerCall.Listener<Q> start(ServerCallHandler<Q, R> next, Metadata headers) {
			ServerCall.Listener<Q> listener = decidedRun(() -> next.startCall(this, headers));
			return new SimpleForwardingServerCallListener<>(listener) {

				@Override
				public void onHalfClose() {
					decidedRun(() -> {
						super.onHalfClose();
						return null;
					});
				}

				@Override
				public void onCancel() {
					try {
						super.onCancel();
					}
					finally {
						end(Status.CANCELLED);
					}
				}

			};
		}

		private <T> T decidedRun(Supplier<T> action) {
			return (this.decided != null) ? this.decided.runDecided(action) : action.get();
		}

		@Override
		public void sendHeaders(Metadata headers) {
			if (this.decided != null) {
				GrpcRateLimitInterceptor.this.answers.admitted(this.decided.decision(), headers);
			}
			super.sendHeaders(headers);
		}

		@Override
		public void close(Status status, Metadata trailers) {
			try {
				super.close(status, trailers);
			}
			finally {
				end(status);
			}
		}

		/** End the call once, however it ended (the handle ends it only once). */
		private void end(Status status) {
			CallHandle call = this.decided;
			if (call != null) {
				call.end(status.isOk() ? null : status.asRuntimeException(), httpStatus(status.getCode()));
			}
		}

		/**
		 * Return the HTTP status an adaptive limit reads a call's end by: the codes of an
		 * overloaded or failing service as their HTTP twins (UNAVAILABLE 503,
		 * RESOURCE_EXHAUSTED 429, DEADLINE_EXCEEDED 504, INTERNAL and UNKNOWN 500), 0 for
		 * the rest, a cancelled call among them.
		 */
		private static int httpStatus(Status.Code code) {
			return switch (code) {
				case UNAVAILABLE -> 503;
				case RESOURCE_EXHAUSTED -> 429;
				case DEADLINE_EXCEEDED -> 504;
				case INTERNAL, UNKNOWN -> 500;
				default -> 0;
			};
		}

	}

}
