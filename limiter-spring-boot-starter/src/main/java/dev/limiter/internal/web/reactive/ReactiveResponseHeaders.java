package dev.limiter.internal.web.reactive;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

import dev.limiter.Decision;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Adds the remaining quota to the response of an admitted call in WebFlux, before the
 * handler writes its body; rejections get their headers from
 * {@link ReactiveRateLimitExceptionHandler}. As on Spring MVC, the first limited call of
 * an exchange reports its quota; a call limited inside it does not replace it.
 */
public class ReactiveResponseHeaders implements RateLimitDecisionListener {

	private final RateLimitHeaders headers;

	/**
	 * Create the listener.
	 * @param headers the header writer
	 */
	public ReactiveResponseHeaders(RateLimitHeaders headers) {
		if (headers == null) {
			throw new IllegalArgumentException("headers must not be null");
		}
		this.headers = headers;
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
	}

	@Override
	public void onCharge(RateLimitInvocation invocation, Decision decision) {
		onDecision(invocation, decision, 0);
	}

	@Override
	public void onDecision(RateLimitInvocation invocation, Decision decision, long nanos) {
		ServerWebExchange exchange = invocation.request(ServerWebExchange.class);
		if (exchange != null) {
			ServerHttpResponse response = exchange.getResponse();
			if (!response.isCommitted() && RateLimitHeaders.reports(invocation.operation().getScope(),
					exchange::getAttribute, exchange.getAttributes()::put)) {
				this.headers.writeAdmitted(decision, response.getHeaders()::set);
			}
		}
	}

}
