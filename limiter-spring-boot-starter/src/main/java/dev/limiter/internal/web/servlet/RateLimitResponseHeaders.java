package dev.limiter.internal.web.servlet;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.limiter.Decision;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Adds the remaining quota to the response of an admitted call, before the handler writes
 * its body; rejections get their headers from {@link RateLimitExceptionHandler}.
 * <p>
 * A response reports the quota of the call that decided it: the first limited call of the
 * request (a handler's {@code @RateLimit}, a GraphQL budget). A call limited inside it (a
 * GraphQL field's {@code @RateLimit}, a chat call's token budget) does not replace those
 * headers; it reports its own only when its refusal becomes the response. A call admitted
 * while the store is unavailable under the fail-open policy gets no headers, since nobody
 * knows its quota; one admitted under the local policy gets the local limit's headers.
 */
public class RateLimitResponseHeaders implements RateLimitDecisionListener {

	private final RateLimitHeaders headers;

	/**
	 * Create the listener.
	 * @param headers the header writer
	 */
	public RateLimitResponseHeaders(RateLimitHeaders headers) {
		if (headers == null) {
			throw new IllegalArgumentException("headers must not be null");
		}
		this.headers = headers;
	}

	@Override
	public void onCharge(RateLimitInvocation invocation, Decision decision) {
		onDecision(invocation.operation(), decision);
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes instanceof ServletRequestAttributes servlet) {
			HttpServletResponse response = servlet.getResponse();
			if (response != null && !response.isCommitted() && RateLimitHeaders.reports(operation.getScope(),
					servlet.getRequest()::getAttribute, servlet.getRequest()::setAttribute)) {
				this.headers.writeAdmitted(decision, response::setHeader);
			}
		}
	}

}
