package dev.limiter.internal.web.reactive;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;

/**
 * Gives back the permits of every call admitted during an exchange that ends in a server
 * error (a 5xx status, or an error that leaves the application), in WebFlux
 * ({@code limiter.web.refund-server-errors}). The refund talks to the store, so it runs
 * off the event loop.
 */
public class ReactiveServerErrorRefunds implements WebFilter, RateLimitDecisionListener {

	private static final String DECISIONS = ReactiveServerErrorRefunds.class.getName() + ".decisions";

	private final RateLimiter rateLimiter;

	/**
	 * Create the refunds.
	 * @param rateLimiter the limiter that gave the permits
	 */
	public ReactiveServerErrorRefunds(RateLimiter rateLimiter) {
		this.rateLimiter = rateLimiter;
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
	}

	@Override
	public void onDecision(RateLimitInvocation invocation, Decision decision, long nanos) {
		ServerWebExchange exchange = invocation.request(ServerWebExchange.class);
		if (exchange != null && decision.isAllowed()) {
			List<Decision> decisions = exchange.getAttributeOrDefault(DECISIONS, null);
			if (decisions == null) {
				decisions = new ArrayList<>(2);
				exchange.getAttributes().put(DECISIONS, decisions);
			}
			decisions.add(decision);
		}
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		return chain.filter(exchange)
			.onErrorResume((ex) -> serverError(ex) ? refund(exchange).then(Mono.error(ex)) : Mono.error(ex))
			.then(Mono.defer(() -> {
				HttpStatusCode status = exchange.getResponse().getStatusCode();
				return (status != null && status.is5xxServerError()) ? refund(exchange) : Mono.empty();
			}));
	}

	/**
	 * Return whether an error that leaves the chain answers with a server error: one that
	 * carries its status ({@code ResponseStatusException}, such as WebFlux's 404 for a
	 * path without a handler) says which, any other is a 500.
	 */
	private static boolean serverError(Throwable failure) {
		return !(failure instanceof org.springframework.web.ErrorResponse response)
				|| response.getStatusCode().is5xxServerError();
	}

	private Mono<Void> refund(ServerWebExchange exchange) {
		List<Decision> decisions = exchange.getAttributeOrDefault(DECISIONS, List.of());
		if (decisions.isEmpty()) {
			return Mono.empty();
		}
		return Mono.<Void>fromRunnable(() -> decisions.forEach(this.rateLimiter::release))
			.subscribeOn(Schedulers.boundedElastic());
	}

}
