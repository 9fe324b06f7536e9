package dev.limiter.internal.web.reactive;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.limiter.Decision;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.ReactiveDecisions;
import dev.limiter.internal.call.RuleCalls;
import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.internal.key.Callers;

/**
 * The rules by path ({@code limiter.web.rules}) on WebFlux: a filter after Spring
 * Security's, so that the principal is known, which decides every rule an exchange
 * matches without blocking, answers a refusal as a handler's is answered
 * ({@link ReactiveRejections}), and ends the admitted calls off the event loop when the
 * exchange ends. When a limit decided later in the exchange refuses it (a handler's
 * {@code @RateLimit}), the rules' grants are given back: a call refused by any of its
 * limits counts in none.
 */
public final class RuleWebFilter implements WebFilter, RateLimitDecisionListener, Ordered {

	/** After Spring Security's filter (-100), before the exchange context filter. */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final String REFUSED = RuleWebFilter.class.getName() + ".refused";

	private final Supplier<RuleCalls> rules;

	private volatile RuleCalls ruleCalls;

	private final ReactiveRejections rejections;

	/**
	 * Create the filter.
	 * @param rules supplies the rules in force, on first use
	 * @param rejections writes a refusal
	 */
	public RuleWebFilter(Supplier<RuleCalls> rules, ReactiveRejections rejections) {
		this.rules = rules;
		this.rejections = rejections;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	private RuleCalls rules() {
		RuleCalls calls = this.ruleCalls;
		if (calls == null) {
			calls = this.rules.get();
			this.ruleCalls = calls;
		}
		return calls;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (rules().isEmpty()) {
			return chain.filter(exchange);
		}
		List<RuleCalls.Rule> matching = rules().matching(exchange.getRequest().getMethod().name(),
				exchange.getRequest().getPath().pathWithinApplication());
		if (matching.isEmpty()) {
			return chain.filter(exchange);
		}
		return exchange.getPrincipal()
			.map(Principal::getName)
			.map((name) -> new RuleExchange(exchange, name))
			.defaultIfEmpty(new RuleExchange(exchange, null))
			.flatMap((request) -> decide(request, matching, 0, new ArrayList<>(matching.size()), chain));
	}

	private Mono<Void> decide(RuleExchange exchange, List<RuleCalls.Rule> matching, int next, List<CallHandle> admitted,
			WebFilterChain chain) {
		if (next == matching.size()) {
			return admitted.isEmpty() ? chain.filter(exchange.getDelegate()) : run(exchange, admitted, chain);
		}
		CallHandle call = rules().prepare(matching.get(next), exchange);
		if (call == null) {
			return decide(exchange, matching, next + 1, admitted, chain);
		}
		return ReactiveDecisions.decided(call).flatMap((decided) -> {
			if (!decided) {
				return Mono.when(admitted.stream().map((given) -> Mono.fromFuture(given::giveBackAsync)).toList())
					.then(this.rejections.write(exchange.getDelegate(), call.rejection()));
			}
			admitted.add(call);
			return decide(exchange, matching, next + 1, admitted, chain);
		});
	}

	private Mono<Void> run(RuleExchange exchange, List<CallHandle> admitted, WebFilterChain chain) {
		ServerWebExchange delegate = exchange.getDelegate();
		return chain.filter(delegate)
			.onErrorResume((ex) -> ended(delegate, admitted, ex).then(Mono.error(ex)))
			.then(Mono.defer(() -> ended(delegate, admitted, null)))
			.doFinally((signal) -> {
				if (signal == SignalType.CANCEL) {
					ended(delegate, admitted, null).subscribe();
				}
			});
	}

	private static Mono<Void> ended(ServerWebExchange exchange, List<CallHandle> admitted, Throwable failure) {
		boolean refused = exchange.getAttribute(REFUSED) != null;
		org.springframework.http.HttpStatusCode status = exchange.getResponse().getStatusCode();
		int code = (status != null) ? status.value() : 0;
		return Mono.when(admitted.stream()
			.map((call) -> Mono.fromFuture(() -> refused ? call.giveBackAsync() : call.endAsync(failure, code)))
			.toList());
	}

	/**
	 * Mark the exchange when a limit that is not a rule's refuses a call of it, so that
	 * the rules' grants are given back when it ends.
	 */
	@Override
	public void onDecision(RateLimitInvocation invocation, Decision decision, long nanos) {
		if (decision.isAllowed() || !rules().givesBack(invocation.operation(), decision)) {
			return;
		}
		ServerWebExchange exchange = invocation.request(ServerWebExchange.class);
		if (exchange != null) {
			exchange.getAttributes().put(REFUSED, Boolean.TRUE);
		}
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
	}

	/**
	 * The exchange as a rule's key and condition see it: the exchange itself
	 * ({@code #request}, and what listeners write to), its request's headers as
	 * {@code #headers}, and its caller by the one rule (the principal, else the client's
	 * address).
	 */
	static final class RuleExchange extends ServerWebExchangeDecorator implements SurfaceRequest {

		private final String principal;

		RuleExchange(ServerWebExchange delegate, String principal) {
			super(delegate);
			this.principal = principal;
			if (principal != null) {
				delegate.getAttributes().put(ServerWebExchangeCurrentRequest.PRINCIPAL_NAME, principal);
			}
		}

		@Override
		public String caller() {
			InetSocketAddress remote = getRequest().getRemoteAddress();
			String address = (remote != null && remote.getAddress() != null) ? remote.getAddress().getHostAddress()
					: null;
			return Callers.caller(this.principal, address);
		}

		@Override
		public Object variable(String name) {
			return "headers".equals(name) ? getRequest().getHeaders() : null;
		}

	}

}
