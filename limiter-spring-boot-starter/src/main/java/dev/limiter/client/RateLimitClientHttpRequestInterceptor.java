package dev.limiter.client;

import java.io.IOException;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

import dev.limiter.Decision;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Keeps a {@code RestClient}'s or {@code RestTemplate}'s requests within the quotas of
 * {@code limiter.clients}, counted across every instance: a request to one of a client's
 * hosts waits for its turn (the calling thread sleeps for the exact time) up to the
 * client's {@code max-wait}, and beyond it is not sent and fails with a
 * {@link RateLimitUnavailableException} (a {@code RateLimitExceededException}). The
 * clients built from Spring Boot's builders have it already; add this bean to a client
 * built by hand.
 */
public final class RateLimitClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final OutgoingQuotas quotas;

	RateLimitClientHttpRequestInterceptor(OutgoingQuotas quotas) {
		this.quotas = quotas;
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		OutgoingQuota quota = this.quotas.forHost(request.getURI().getHost());
		if (quota == null) {
			return execution.execute(request, body);
		}
		Decision turn = this.quotas.awaitTurn(quota);
		try {
			ClientHttpResponse response = execution.execute(request, body);
			this.quotas.learn(quota, response.getStatusCode().value(), response.getHeaders()::getFirst);
			return response;
		}
		finally {
			this.quotas.done(turn);
		}
	}

}
