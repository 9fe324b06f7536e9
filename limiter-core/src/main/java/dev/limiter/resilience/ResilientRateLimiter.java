package dev.limiter.resilience;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.ForwardingRateLimiter;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.cache.RejectionCache;
import dev.limiter.internal.Engines;
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
public final class ResilientRateLimiter extends ForwardingRateLimiter implements RejectionCache {

	private static final Logger logger = LoggerFactory.getLogger(ResilientRateLimiter.class);

	static {
		Engines.register(ResilientRateLimiter.class, (limiter) -> limiter.engine);
	}

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

	private final ResilientEngine engine;

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
		this.engine = new ResilientEngine(store, defaultPolicy, local, breaker, listener);
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
		return this.engine.breakerState();
	}

	/**
	 * Return the store's latest failure since it last answered, such as a timeout or
	 * Redis refusing a write when it is out of memory.
	 * @return the failure, or {@code null} when the store answered the latest call
	 */
	public Throwable lastFailure() {
		return this.engine.lastFailure();
	}

	/**
	 * Return how long until the open breaker lets a probe through to the store.
	 * @return the time left open; zero when not open
	 */
	public Duration breakerRemainingOpen() {
		return this.engine.breakerRemainingOpen();
	}

	@Override
	protected RateLimiter delegate() {
		return this.engine;
	}

	/**
	 * Return the store's cached rejection of the call while the breaker is closed; an
	 * open or probing breaker answers by its failure policy instead, so it knows none.
	 */
	@Override
	public Decision cachedRejection(String key, long permits, List<Limit> limits) {
		return this.engine.cachedRejection(key, permits, limits);
	}

	@Override
	public void forgetCachedRejections(String key) {
		this.engine.forgetCachedRejections(key);
	}

}
