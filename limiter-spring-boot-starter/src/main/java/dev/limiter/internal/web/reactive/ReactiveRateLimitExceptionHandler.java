package dev.limiter.internal.web.reactive;

import java.net.URI;
import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.Order;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.ProblemBodies;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Turns {@link RateLimitExceededException} into HTTP 429 with the same headers and
 * {@code application/problem+json} body as on the servlet stack, in Spring WebFlux
 * applications; a fail-closed rejection while the store is unavailable gets the
 * configured status, 503 by default.
 * <p>
 * The answer is written straight to the response, with the bytes Spring WebFlux would
 * write for the same {@code ResponseEntity<ProblemDetail>}: the application's own writer
 * for {@code application/problem+json} serializes a body once per distinct problem, and
 * the next rejections with the same problem write those bytes again, without content
 * negotiation and encoding per rejection.
 */
@RestControllerAdvice
@Order(RateLimitResponses.HANDLER_ORDER)
public class ReactiveRateLimitExceptionHandler {

	private static final ResolvableType PROBLEM_TYPE = ResolvableType.forClass(ProblemDetail.class);

	private final RateLimitResponses responses;

	private final ObjectProvider<ServerCodecConfigurer> codecs;

	private final ProblemBodies<byte[]> bodies = new ProblemBodies<>();

	private volatile HttpMessageWriter<ProblemDetail> writer;

	/**
	 * Create the handler.
	 * @param responses the responses to rejections
	 * @param codecs the application's codecs, whose writer serializes the problems
	 */
	public ReactiveRateLimitExceptionHandler(RateLimitResponses responses,
			ObjectProvider<ServerCodecConfigurer> codecs) {
		if (responses == null) {
			throw new IllegalArgumentException("responses must not be null");
		}
		this.responses = responses;
		this.codecs = codecs;
	}

	/**
	 * Answer a rejection by a fail-closed limit while the store is unavailable: the
	 * configured status, {@code Retry-After} and a problem that says the store is
	 * unavailable.
	 * @param ex the rejection
	 * @param exchange the exchange to answer
	 * @return completes when the response is written
	 */
	@ExceptionHandler(RateLimitUnavailableException.class)
	public Mono<Void> handleRateLimitUnavailable(RateLimitUnavailableException ex, ServerWebExchange exchange) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(this.responses.unavailableStatus());
		return write(this.responses.unavailable(ex, response.getHeaders()::set), exchange);
	}

	/**
	 * Answer a rejection.
	 * @param ex the rejection
	 * @param exchange the exchange to answer
	 * @return completes when the 429 is written
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public Mono<Void> handleRateLimitExceeded(RateLimitExceededException ex, ServerWebExchange exchange) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
		return write(this.responses.exceeded(ex, response.getHeaders()::set), exchange);
	}

	private Mono<Void> write(ProblemDetail problem, ServerWebExchange exchange) {
		// What Spring WebFlux does with a problem that names no instance: the request's
		// path.
		if (problem.getInstance() == null) {
			problem.setInstance(URI.create(exchange.getRequest().getPath().value()));
		}
		ServerHttpResponse response = exchange.getResponse();
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
			ServerCodecConfigurer codecs = this.codecs.getIfAvailable(ServerCodecConfigurer::create);
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
