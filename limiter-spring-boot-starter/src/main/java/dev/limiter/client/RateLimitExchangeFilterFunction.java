package dev.limiter.client;

import java.time.Duration;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Decision;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Keeps a {@code WebClient}'s requests within the quotas of {@code limiter.clients},
 * counted across every instance: a request to one of a client's hosts is delayed until
 * its turn, without blocking a thread, up to the client's {@code max-wait}, and beyond it
 * is not sent and fails with a {@link RateLimitUnavailableException} (a
 * {@code RateLimitExceededException}). The clients built from Spring Boot's
 * {@code WebClient.Builder} have it already; add this bean to a client built by hand.
 */
public final class RateLimitExchangeFilterFunction implements ExchangeFilterFunction {

	private final OutgoingQuotas quotas;

	RateLimitExchangeFilterFunction(OutgoingQuotas quotas) {
		this.quotas = quotas;
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		OutgoingQuota quota = this.quotas.forHost(request.url().getHost());
		if (quota == null) {
			return next.exchange(request);
		}
		return Mono.defer(() -> turn(quota, quota.deadline(), this.quotas.clock().nanoTime(), false))
			.flatMap((turn) -> next.exchange(request)
				.doOnNext((response) -> this.quotas.learn(quota, response.statusCode().value(),
						response.headers().asHttpHeaders()::getFirst))
				// counted from the response: it talks to the store, so off the event loop
				.flatMap((response) -> done(turn).thenReturn(response))
				.onErrorResume((ex) -> done(turn).then(Mono.error(ex))));
	}

	private Mono<Void> done(Decision turn) {
		return Mono.fromRunnable(() -> this.quotas.done(turn)).subscribeOn(Schedulers.boundedElastic()).then();
	}

	private Mono<Decision> turn(OutgoingQuota quota, long deadline, long start, boolean waited) {
		long held = quota.heldFor();
		if (held > 0) {
			return waitThenTurn(quota, deadline, start, held);
		}
		// the store answers on its own threads: the request goes on on Reactor's
		return Mono.fromFuture(() -> quota.askAsync(this.quotas.rateLimiter()))
			.publishOn(Schedulers.parallel())
			.flatMap((decision) -> {
				if (decision.isAllowed()) {
					if (waited) {
						this.quotas.listener().waited(quota.name(), this.quotas.clock().nanoTime() - start);
					}
					return Mono.just(decision);
				}
				return waitThenTurn(quota, deadline, start, Math.max(1, decision.retryAfter().toNanos()));
			});
	}

	private Mono<Decision> waitThenTurn(OutgoingQuota quota, long deadline, long start, long nanos) {
		long delay = quota.waitFor(Duration.ofNanos(nanos), deadline);
		if (delay < 0) {
			this.quotas.listener().refused(quota.name());
			return Mono.error(quota.refused(Duration.ofNanos(nanos)));
		}
		return Mono.delay(Duration.ofNanos(delay)).then(Mono.defer(() -> turn(quota, deadline, start, true)));
	}

}
