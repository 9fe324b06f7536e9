package dev.limiter.gateway;

import java.util.List;

import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Answers a gateway request that a fail-closed limit rejected while the store was
 * unavailable with the same status (503 by default), {@code Retry-After} and
 * {@code application/problem+json} body as an annotated method gets.
 */
public class GatewayRateLimitExceptionHandler implements WebExceptionHandler, Ordered {

	/** Before Spring Boot's error handler, which would answer 500. */
	public static final int ORDER = -2;

	private final RateLimitResponses responses;

	private final ServerResponse.Context context;

	/**
	 * Create the handler.
	 * @param responses the responses to rejections
	 * @param codecs the writers of the body
	 */
	GatewayRateLimitExceptionHandler(RateLimitResponses responses, ServerCodecConfigurer codecs) {
		if (responses == null || codecs == null) {
			throw new IllegalArgumentException("responses and codecs must not be null");
		}
		this.responses = responses;
		List<HttpMessageWriter<?>> writers = codecs.getWriters();
		this.context = new ServerResponse.Context() {

			@Override
			public List<HttpMessageWriter<?>> messageWriters() {
				return writers;
			}

			@Override
			public List<ViewResolver> viewResolvers() {
				return List.of();
			}

		};
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		if (!(ex instanceof RateLimitUnavailableException unavailable) || exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		ResponseEntity<ProblemDetail> entity = this.responses.unavailable(unavailable);
		return ServerResponse.status(entity.getStatusCode())
			.headers((headers) -> headers.addAll(entity.getHeaders()))
			.bodyValue(entity.getBody())
			.flatMap((response) -> response.writeTo(exchange, this.context));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
