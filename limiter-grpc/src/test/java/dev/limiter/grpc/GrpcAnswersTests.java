package dev.limiter.grpc;

import java.time.Duration;

import com.google.rpc.QuotaFailure;
import com.google.rpc.RetryInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.Limit;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.web.HeaderStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a gRPC client is told of a call that costs more than its limit holds in all: no
 * wait lets it pass, so no answer promises one. (A gRPC method's permits are checked
 * against its limits at startup, and the endpoint refuses an override under them: the
 * answer is the one every surface gives such a call, kept here for any cost to come.)
 */
class GrpcAnswersTests {

	private final GrpcAnswers answers = new GrpcAnswers(new RateLimitHeaders(HeaderStyle.BOTH));

	@Test
	void aCallThatCanNeverPassIsAFailedPreconditionThatNoRetryPolicyRetries() {
		Limit limit = Limit.of("greet-weighed", 3, Duration.ofSeconds(10));
		StatusRuntimeException refused = this.answers
			.refusal(CostExceedsLimitException.of("m:Greetings.weigh:ann", 4, limit));
		assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
		assertThat(refused.getStatus().getDescription()).isEqualTo(CostExceedsLimitException.standardMessage(4, limit));
		assertThat(refused.getTrailers().get(GrpcAnswers.RETRY_PUSHBACK)).as("a retry policy's pushback: never")
			.isEqualTo("-1");
		assertThat(refused.getTrailers().keys()).doesNotContain("retry-after", "ratelimit");
		com.google.rpc.Status status = StatusProto.fromThrowable(refused);
		assertThat(status.getDetailsList()).anyMatch((detail) -> detail.is(QuotaFailure.class))
			.noneMatch((detail) -> detail.is(RetryInfo.class));
	}

}
