package dev.limiter.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.cache.RejectionCache;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.Engines;
import dev.limiter.internal.WatchedDecision;
import dev.limiter.internal.resilience.CircuitBreaker;

/**
 * The engine of {@link ResilientRateLimiter}: the breaker in front of the store and the
 * failure policies behind it.
 */
final class ResilientEngine extends AbstractRateLimiter implements RejectionCache {

	private final RateLimiter store;

	// The store's rejection cache, when it has one, passed on.
	private final RejectionCache cache;

	private final FailurePolicy defaultPolicy;

	private final RateLimiter local;

	private final CircuitBreaker breaker;

	private final ResilientRateLimiter.DegradedListener listener;

	ResilientEngine(RateLimiter store, FailurePolicy defaultPolicy, RateLimiter local, CircuitBreaker breaker,
			ResilientRateLimiter.DegradedListener listener) {
		if (store == null || defaultPolicy == null || local == null || breaker == null) {
			throw new IllegalArgumentException("store, defaultPolicy, local and breaker must not be null");
		}
		this.store = store;
		this.cache = (store instanceof RejectionCache rejections) ? rejections : null;
		this.defaultPolicy = defaultPolicy;
		this.local = local;
		this.breaker = breaker;
		this.listener = (listener != null) ? listener : (decision, policy) -> {
		};
	}

	ResilientRateLimiter.BreakerState breakerState() {
		return ResilientRateLimiter.BreakerState.valueOf(this.breaker.state().name());
	}

	Throwable lastFailure() {
		return this.breaker.lastFailure();
	}

	Duration breakerRemainingOpen() {
		return this.breaker.remainingOpen();
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		return viaStore(() -> acquire(this.store, checked(key, permits, limits)), () -> fallback(key, permits, limits));
	}

	@Override
	protected CompletableFuture<Decision> doAcquireAsync(String key, long permits, List<Limit> limits) {
		return viaStoreAsync(() -> acquireAsync(this.store, checked(key, permits, limits)),
				() -> fallback(key, permits, limits));
	}

	/**
	 * Ask the store for a call's enforced and watching limits at once through the
	 * breaker; a store that cannot answer has both answered by their failure policies.
	 */
	@Override
	protected WatchedDecision doAcquire(CheckedCall enforced, CheckedCall watched) {
		return viaStore(() -> acquire(this.store, enforced, watched), () -> fallback(enforced, watched));
	}

	@Override
	protected CompletableFuture<WatchedDecision> doAcquireAsync(CheckedCall enforced, CheckedCall watched) {
		return viaStoreAsync(() -> acquireAsync(this.store, enforced, watched), () -> fallback(enforced, watched));
	}

	private WatchedDecision fallback(CheckedCall enforced, CheckedCall watched) {
		Decision decision = fallback(enforced.key(), enforced.permits(), enforced.limits());
		return new WatchedDecision(decision,
				decision.isAllowed() ? fallback(watched.key(), watched.permits(), watched.limits()) : null);
	}

	/**
	 * Return the store's cached rejection of the call while the breaker is closed; an
	 * open or probing breaker answers by its failure policy instead, so it knows none.
	 */
	@Override
	public Decision cachedRejection(String key, long permits, List<Limit> limits) {
		if (this.breaker.state() != CircuitBreaker.State.CLOSED) {
			return null;
		}
		Decision known = (this.cache != null) ? this.cache.cachedRejection(key, permits, limits) : null;
		if (known != null) {
			this.breaker.onSuccess();
		}
		return known;
	}

	/**
	 * Give back a decision's permits to the store; a store that cannot answer keeps them,
	 * which only makes the limit stricter until they leave its window.
	 */
	@Override
	public boolean release(Decision decision) {
		if (decision == null || decision.isDegraded()) {
			return false;
		}
		return viaStore(() -> this.store.release(decision), () -> abandoned(decision));
	}

	/**
	 * End a decision's call where it was taken: in the store, or in memory for a decision
	 * of the {@link FailurePolicy#LOCAL} policy. A store that cannot answer keeps the
	 * slots until their leases end.
	 */
	@Override
	public boolean finish(Decision decision) {
		if (decision == null) {
			return false;
		}
		if (decision.isDegraded()) {
			return decision.policy() == FailurePolicy.LOCAL && this.local.finish(decision);
		}
		return viaStore(() -> this.store.finish(decision), () -> abandoned(decision));
	}

	/**
	 * Charge a decision where it was taken: in the store, or in memory for a decision of
	 * the {@link FailurePolicy#LOCAL} policy. A store that cannot take the charge loses
	 * it (the reservation stands), as a refund is lost: a charge never fails the call
	 * that it settles.
	 */
	@Override
	public Decision charge(Decision decision, long permits) {
		chargeable(decision, permits);
		if (decision.isDegraded()) {
			return (decision.policy() == FailurePolicy.LOCAL) ? this.local.charge(decision, permits) : decision;
		}
		return viaStore(() -> this.store.charge(decision, permits), () -> decision);
	}

	@Override
	public CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		chargeable(decision, permits);
		if (decision.isDegraded()) {
			return CompletableFuture.completedFuture(charge(decision, permits));
		}
		return viaStoreAsync(() -> this.store.chargeAsync(decision, permits), () -> decision);
	}

	/**
	 * Move a decision's permits to now where it was taken: in the store, or in memory for
	 * a decision of the {@link FailurePolicy#LOCAL} policy; a store that cannot answer
	 * leaves them where they were.
	 */
	@Override
	public boolean moveToNow(Decision decision) {
		if (decision == null) {
			return false;
		}
		if (decision.isDegraded()) {
			return decision.policy() == FailurePolicy.LOCAL && this.local.moveToNow(decision);
		}
		return viaStore(() -> this.store.moveToNow(decision), () -> false);
	}

	/**
	 * Ask the store through the breaker, the one place of its bookkeeping: an answer
	 * closes it, a failure counts towards opening it and is answered by
	 * {@code otherwise}, as is every call while it is open. An invalid argument is the
	 * caller's mistake, not an outage of the store: it is thrown as it is and the breaker
	 * is not told.
	 */
	private <T> T viaStore(Supplier<T> call, Supplier<T> otherwise) {
		if (!this.breaker.tryAcquire()) {
			return otherwise.get();
		}
		T answer;
		try {
			answer = call.get();
		}
		catch (IllegalArgumentException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			this.breaker.onFailure(ex);
			return otherwise.get();
		}
		this.breaker.onSuccess();
		return answer;
	}

	/**
	 * Ask the store through the breaker without blocking, with the same bookkeeping as
	 * {@link #viaStore}; an invalid argument completes the future with it.
	 */
	private <T> CompletableFuture<T> viaStoreAsync(Supplier<CompletableFuture<T>> call, Supplier<T> otherwise) {
		if (!this.breaker.tryAcquire()) {
			return CompletableFuture.completedFuture(otherwise.get());
		}
		CompletableFuture<T> answer;
		try {
			answer = call.get();
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		return answer.handle((value, failure) -> {
			if (failure == null) {
				this.breaker.onSuccess();
				return value;
			}
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			if (cause instanceof IllegalArgumentException illegal) {
				throw illegal;
			}
			this.breaker.onFailure(cause);
			return otherwise.get();
		});
	}

	@Override
	protected List<Usage> doUsage(String key, List<Limit> limits) {
		return this.store.usage(key, limits);
	}

	@Override
	public void forgetCachedRejections(String key) {
		if (this.cache != null) {
			this.cache.forgetCachedRejections(key);
		}
	}

	@Override
	protected void doReset(String key, List<Limit> limits) {
		this.store.reset(key, limits);
		this.local.reset(key, limits);
	}

	private Decision fallback(String key, long permits, List<Limit> limits) {
		List<Limit> locals = null;
		for (Limit limit : limits) {
			FailurePolicy policy = policy(limit);
			if (policy == FailurePolicy.FAIL_CLOSED) {
				// Whoever chose fail-closed prefers refusing calls to admitting unlimited
				// ones.
				Duration wait = this.breaker.remainingOpen();
				wait = wait.isZero() ? Duration.ofSeconds(1) : wait;
				return degraded(Decision.rejected(limit, 0, wait, wait, nowMicros()), policy);
			}
			if (policy == FailurePolicy.LOCAL) {
				locals = (locals != null) ? locals : new ArrayList<>(limits.size());
				locals.add(limit.withThreshold(limit.localThreshold()).withLocalThreshold(0).withFailurePolicy(null));
			}
		}
		if (locals != null) {
			long smallest = locals.stream().mapToLong(Limit::threshold).min().getAsLong();
			if (permits > smallest) {
				Limit limit = locals.get(0);
				return degraded(Decision.rejected(limit, smallest, limit.period(), limit.period(), nowMicros()),
						FailurePolicy.LOCAL);
			}
			return degraded(this.local.acquire(key, permits, locals), FailurePolicy.LOCAL);
		}
		// Fail open: an outage of the store must not take the application down with it.
		Limit limit = limits.get(0);
		return degraded(Decision.failedOpen(limit, nowMicros()), FailurePolicy.FAIL_OPEN);
	}

	/**
	 * The store could not be told that a call ended: its slots free with their leases.
	 */
	private boolean abandoned(Decision decision) {
		AbstractRateLimiter engine = Engines.of(this.store);
		if (engine != null) {
			engine.abandon(decision);
		}
		return false;
	}

	private Decision degraded(Decision decision, FailurePolicy policy) {
		Decision degraded = Decisions.decidedBy(decision, policy);
		this.listener.degraded(degraded, policy);
		return degraded;
	}

	private FailurePolicy policy(Limit limit) {
		return (limit.failurePolicy() != null) ? limit.failurePolicy() : this.defaultPolicy;
	}

	private static long nowMicros() {
		return System.currentTimeMillis() * 1_000;
	}

}
