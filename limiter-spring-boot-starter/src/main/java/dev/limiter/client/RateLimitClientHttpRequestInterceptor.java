package dev.limiter.client;

import java.io.IOException;
import java.time.Duration;

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
		Decision turn = awaitTurn(quota);
		try {
			ClientHttpResponse response = execution.execute(request, body);
			this.quotas.learn(quota, response.getStatusCode().value(), response.getHeaders()::getFirst);
			return response;
		}
		finally {
			this.quotas.done(turn);
		}
	}

	private Decision awaitTurn(OutgoingQuota quota) {
		long start = this.quotas.clock().nanoTime();
		long deadline = quota.deadline();
		boolean waitedOnce = false;
		while (true) {
			long held = quota.heldFor();
			Duration wait;
			if (held > 0) {
				wait = Duration.ofNanos(held);
			}
			else {
				Decision decision = quota.ask(this.quotas.rateLimiter());
				if (decision.isAllowed()) {
					if (waitedOnce) {
						this.quotas.listener().waited(quota.name(), this.quotas.clock().nanoTime() - start);
					}
					return decision;
				}
				wait = decision.retryAfter();
			}
			long nanos = quota.waitFor(wait, deadline);
			if (nanos < 0) {
				this.quotas.listener().refused(quota.name());
				throw quota.refused(wait);
			}
			waitedOnce = true;
			try {
				this.quotas.clock().sleep(Duration.ofNanos(nanos));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw quota.refused(wait);
			}
		}
	}

}
