package dev.limiter.grpc;

import java.time.Duration;
import java.util.Locale;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.QuotaFailure;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * What a gRPC client is told, by the conventions gRPC clients read: a refusal over quota
 * is {@code RESOURCE_EXHAUSTED} with {@code google.rpc.RetryInfo} (the exact wait) and
 * {@code google.rpc.QuotaFailure} (the limit) in its status details; a refusal while the
 * store cannot answer, or by a limit that protects capacity, is {@code UNAVAILABLE} with
 * {@code RetryInfo}. Both carry {@code grpc-retry-pushback-ms}, which grpc-java's retry
 * policies honour, and the quota as HTTP says it, in lower-case metadata keys
 * ({@code retry-after}, {@code ratelimit-policy}, {@code ratelimit},
 * {@code x-ratelimit-*}), which admitted calls get in their response headers.
 */
final class GrpcAnswers {

	/** The key grpc-java's retry policy reads the server's wait from. */
	static final Metadata.Key<String> RETRY_PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms",
			Metadata.ASCII_STRING_MARSHALLER);

	private final RateLimitHeaders headers;

	GrpcAnswers(RateLimitHeaders headers) {
		this.headers = headers;
	}

	/** Write the quota of an admitted call into its response headers. */
	void admitted(Decision decision, Metadata metadata) {
		if (decision != null) {
			this.headers.writeAdmitted(decision, (name, value) -> put(metadata, name, value));
		}
	}

	/** Return the status and trailers that refuse a call. */
	StatusRuntimeException refusal(RateLimitExceededException rejection) {
		if (rejection instanceof CostExceedsLimitException costly) {
			return tooCostly(costly);
		}
		Decision decision = rejection.getDecision();
		boolean unavailable = rejection instanceof RateLimitUnavailableException;
		Duration wait = decision.retryAfter();
		com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder()
			.setCode(unavailable ? Code.UNAVAILABLE_VALUE : Code.RESOURCE_EXHAUSTED_VALUE)
			.setMessage(rejection.getMessage())
			.addDetails(Any.pack(RetryInfo.newBuilder()
				.setRetryDelay(com.google.protobuf.Duration.newBuilder()
					.setSeconds(wait.getSeconds())
					.setNanos(wait.getNano()))
				.build()));
		if (!unavailable) {
			status.addDetails(Any.pack(QuotaFailure.newBuilder()
				.addViolations(QuotaFailure.Violation.newBuilder()
					.setSubject(decision.limit().name())
					.setDescription(decision.limit().toString()))
				.build()));
		}
		Metadata trailers = new Metadata();
		trailers.put(RETRY_PUSHBACK, Long.toString(Math.max(1, wait.toMillis())));
		if (unavailable) {
			put(trailers, RateLimitHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
		}
		else {
			this.headers.write(decision, (name, value) -> put(trailers, name, value));
		}
		return StatusProto.toStatusRuntimeException(status.build(), trailers);
	}

	/**
	 * Refuse a call that costs more than its limit holds in all:
	 * {@code FAILED_PRECONDITION} (no retry helps until the limit is raised or the call
	 * made cheaper) with the limit in {@code QuotaFailure}, and a negative
	 * {@code grpc-retry-pushback-ms}, which tells a client's retry policy not to retry;
	 * no wait is promised.
	 */
	private static StatusRuntimeException tooCostly(CostExceedsLimitException rejection) {
		com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
			.setCode(Code.FAILED_PRECONDITION_VALUE)
			.setMessage(rejection.getMessage())
			.addDetails(Any.pack(QuotaFailure.newBuilder()
				.addViolations(QuotaFailure.Violation.newBuilder()
					.setSubject(rejection.getDecision().limit().name())
					.setDescription("costs " + rejection.getCost() + ", more than the " + rejection.getLargestCost()
							+ " the limit holds in all"))
				.build()))
			.build();
		Metadata trailers = new Metadata();
		trailers.put(RETRY_PUSHBACK, "-1");
		return StatusProto.toStatusRuntimeException(status, trailers);
	}

	/** Return whether a status is one that the refusals of Limiter use. */
	static boolean isRefusal(Status status) {
		return status.getCode() == Status.Code.RESOURCE_EXHAUSTED || status.getCode() == Status.Code.UNAVAILABLE;
	}

	private static void put(Metadata metadata, String name, String value) {
		Metadata.Key<String> key = Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER);
		metadata.discardAll(key);
		metadata.put(key, value);
	}

}
