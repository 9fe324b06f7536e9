package dev.limiter.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.cache.RejectionCache;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.resilience.CircuitBreaker;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * A {@link RateLimiter} that asks a store (Redis) through a {@link CircuitBreaker} and,
 * when the store fails or the breaker is open, decides by each limit's
 * {@link FailurePolicy} instead of failing the call.
 * <p>
 * With several limits on one call: if any limit is {@link FailurePolicy#FAIL_CLOSED} the
 * call is rejected; otherwise the {@link FailurePolicy#LOCAL} limits decide in this
 * instance at their local thresholds, and {@link FailurePolicy#FAIL_OPEN} limits admit.
 * Every such decision is {@link Decision#isDegraded() degraded}. How long a call may wait
 * on the store is the store's own timeout (see
 * {@link dev.limiter.internal.redis.LimiterConnectionFactories}); the breaker then stops
 * paying it on every call while the store is down.
 */
public final class ResilientRateLimiter extends AbstractRateLimiter implements RejectionCache {

	private static final Logger logger = LoggerFactory.getLogger(ResilientRateLimiter.class);

	/**
	 * The state of the breaker in front of the store.
	 */
	public enum BreakerState {

		/** Calls go to the store. */
		CLOSED,

		/** The store failed: calls are decided by their failure policy until a probe. */
		OPEN,

		/**
		 * One probe goes to the store; the others are decided by their failure policy.
		 */
		HALF_OPEN

	}

	/**
	 * Told of every degraded decision, for metrics.
	 */
	public interface DegradedListener {

		/**
		 * Called for every decision taken without the store.
		 * @param decision the degraded decision
		 * @param policy the policy that decided it
		 */
		void degraded(Decision decision, FailurePolicy policy);

	}

	private final RateLimiter store;

	// The store's rejection cache, when it has one, passed on.
	private final RejectionCache cache;

	private final FailurePolicy defaultPolicy;

	private final RateLimiter local;

	private final CircuitBreaker breaker;

	private final DegradedListener listener;

	/**
	 * Create a limiter whose breaker logs each outage once.
	 * @param store the limiter that uses the store
	 * @param defaultPolicy the policy of limits that have none of their own
	 * @param local the in-memory limiter for {@link FailurePolicy#LOCAL}
	 * @param failureThreshold consecutive failures that open the breaker
	 * @param openDuration how long the breaker stays open before a probe
	 * @param listener told of every degraded decision, or {@code null}
	 */
	public ResilientRateLimiter(RateLimiter store, FailurePolicy defaultPolicy, RateLimiter local, int failureThreshold,
			Duration openDuration, DegradedListener listener) {
		this(store, defaultPolicy, local, loggingBreaker(failureThreshold, openDuration), listener);
	}

	ResilientRateLimiter(RateLimiter store, FailurePolicy defaultPolicy, RateLimiter local, CircuitBreaker breaker,
			DegradedListener listener) {
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

	/**
	 * Create a breaker that logs each outage once: a warning when it starts and a line
	 * when the store is back.
	 * @param failureThreshold consecutive failures that open it
	 * @param openDuration how long it stays open before a probe
	 * @return the breaker
	 */
	static CircuitBreaker loggingBreaker(int failureThreshold, Duration openDuration) {
		return new CircuitBreaker(failureThreshold, openDuration, System::nanoTime, new CircuitBreaker.Listener() {

			@Override
			public void opened(Throwable cause) {
				logger.warn("Rate-limit store unavailable, deciding by failure policy until it is back: {}",
						String.valueOf(cause));
			}

			@Override
			public void closed(Duration outage) {
				logger.info("Rate-limit store is back after {} ms", outage.toMillis());
			}

		});
	}

	/**
	 * Create a limiter with an in-memory local limiter and a logging breaker.
	 * @param store the limiter that uses the store
	 * @param defaultPolicy the policy of limits that have none of their own
	 * @return the limiter
	 */
	public static ResilientRateLimiter of(RateLimiter store, FailurePolicy defaultPolicy) {
		return new ResilientRateLimiter(store, defaultPolicy, new InMemoryRateLimiter(),
				loggingBreaker(3, Duration.ofMillis(500)), null);
	}

	/**
	 * Return the state of the breaker in front of the store.
	 * @return the state
	 */
	public BreakerState breakerState() {
		return BreakerState.valueOf(this.breaker.state().name());
	}

	/**
	 * Return the store's latest failure since it last answered, such as a timeout or
	 * Redis refusing a write when it is out of memory.
	 * @return the failure, or {@code null} when the store answered the latest call
	 */
	public Throwable lastFailure() {
		return this.breaker.lastFailure();
	}

	/**
	 * Return how long until the open breaker lets a probe through to the store.
	 * @return the time left open; zero when not open
	 */
	public Duration breakerRemainingOpen() {
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
		return viaStore(() -> this.store.release(decision), () -> false);
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
