package dev.limiter.internal.web.reactive;

import java.util.Map;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.web.ProblemBodies;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Writes the answer to a rejection on a reactive exchange, for every reactive surface (an
 * annotated WebFlux handler, a gateway route): the status, headers and problem that
 * {@link RateLimitResponses} builds, with the bytes Spring WebFlux would write for the
 * same {@code ResponseEntity<ProblemDetail>}.
 * <p>
 * The application's own writer for {@code application/problem+json} serializes a body
 * once per distinct problem, and the next rejections with the same problem write those
 * bytes again, without content negotiation and encoding per rejection.
 */
public final class ReactiveRejections {

	private static final ResolvableType PROBLEM_TYPE = ResolvableType.forClass(ProblemDetail.class);

	private final RateLimitResponses responses;

	private final Supplier<ServerCodecConfigurer> codecs;

	private final ProblemBodies<byte[]> bodies = new ProblemBodies<>();

	private volatile HttpMessageWriter<ProblemDetail> writer;

	/**
	 * Create the writer.
	 * @param responses the responses to rejections
	 * @param codecs the application's codecs, whose writer serializes the problems, asked
	 * on first use
	 */
	public ReactiveRejections(RateLimitResponses responses, Supplier<ServerCodecConfigurer> codecs) {
		if (responses == null || codecs == null) {
			throw new IllegalArgumentException("responses and codecs must not be null");
		}
		this.responses = responses;
		this.codecs = codecs;
	}

	/**
	 * Answer a rejection: 429, or the configured status (503 by default) for a
	 * fail-closed refusal while the store is unavailable.
	 * @param exchange the exchange to answer
	 * @param rejection the rejection
	 * @return completes when the answer is written
	 */
	public Mono<Void> write(ServerWebExchange exchange, RateLimitExceededException rejection) {
		ServerHttpResponse response = exchange.getResponse();
		ProblemDetail problem = this.responses.answer(rejection, exchange.getRequest().getPath().value(),
				response.getHeaders()::set);
		response.setStatusCode(HttpStatusCode.valueOf(problem.getStatus()));
		MediaType contentType = MediaType.APPLICATION_PROBLEM_JSON;
		HttpMessageWriter<ProblemDetail> writer = writer();
		if (!(writer instanceof EncoderHttpMessageWriter<ProblemDetail> encoding)) {
			Map<String, Object> hints = Hints.from(Hints.LOG_PREFIX_HINT, exchange.getLogPrefix());
			return writer.write(Mono.just(problem), PROBLEM_TYPE, PROBLEM_TYPE, contentType, exchange.getRequest(),
					response, hints);
		}
		byte[] body = this.bodies.get(problem, contentType, (p) -> serialize(p, contentType, encoding));
		response.getHeaders().setContentLength(body.length);
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
	}

	private static byte[] serialize(ProblemDetail problem, MediaType contentType,
			EncoderHttpMessageWriter<ProblemDetail> writer) {
		DataBuffer buffer = writer.getEncoder()
			.encodeValue(problem, DefaultDataBufferFactory.sharedInstance, PROBLEM_TYPE, contentType, Hints.none());
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	/**
	 * The first of the application's writers that writes a problem as
	 * {@code application/problem+json}, as Spring WebFlux picks it for a
	 * {@code ResponseEntity<ProblemDetail>}.
	 */
	@SuppressWarnings("unchecked")
	private HttpMessageWriter<ProblemDetail> writer() {
		HttpMessageWriter<ProblemDetail> writer = this.writer;
		if (writer == null) {
			ServerCodecConfigurer codecs = this.codecs.get();
			for (HttpMessageWriter<?> candidate : codecs.getWriters()) {
				if (candidate.canWrite(PROBLEM_TYPE, MediaType.APPLICATION_PROBLEM_JSON)) {
					writer = (HttpMessageWriter<ProblemDetail>) candidate;
					break;
				}
			}
			if (writer == null) {
				throw new IllegalStateException("No HttpMessageWriter writes a ProblemDetail as "
						+ MediaType.APPLICATION_PROBLEM_JSON + "; add a JSON codec such as Jackson's");
			}
			this.writer = writer;
		}
		return writer;
	}

}
