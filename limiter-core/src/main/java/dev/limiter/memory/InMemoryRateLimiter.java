package dev.limiter.memory;

import java.time.Clock;

import dev.limiter.FailurePolicy;
import dev.limiter.ForwardingRateLimiter;
import dev.limiter.RateLimiter;
import dev.limiter.internal.Engines;

/**
 * A {@link dev.limiter.RateLimiter} that keeps the same state as the Redis one, for every
 * {@link dev.limiter.Algorithm}, inside this JVM: for one instance, for tests, and as the
 * local fallback when Redis is down.
 * <p>
 * Thread-safe: each key is decided under its own lock. Memory is bounded: a log holds at
 * most its threshold of entries, a bucketed window its slices, a token bucket one number,
 * keys whose windows have emptied are evicted by a sweep that runs, amortized, as calls
 * come in, and at most {@link #DEFAULT_MAXIMUM_KEYS} keys (or the maximum given) are held
 * at once, give or take one per concurrent caller.
 * <p>
 * When the limiter holds its maximum of keys whose windows are still live, a call of a
 * key it does not hold evicts the least recently used sixteenth of them, which forget
 * their counts; a warning says so at most once a minute, and {@link #evictedLiveKeys()}
 * counts them. Every call stays counted: keys in use stay limited through a flood of
 * distinct keys, and new callers are limited too. Admitting new keys uncounted would turn
 * limiting off for every new caller while the flood lasts (and this store carries every
 * limit during a Redis outage under the {@link FailurePolicy#LOCAL} policy); rejecting
 * them would lock every new caller out.
 */
public final class InMemoryRateLimiter extends ForwardingRateLimiter {

	/** The most keys held at once when no maximum is given. */
	public static final int DEFAULT_MAXIMUM_KEYS = 100_000;

	static {
		Engines.register(InMemoryRateLimiter.class, (limiter) -> limiter.engine);
	}

	private final InMemoryEngine engine;

	/**
	 * Create a limiter on the system clock that records admitted calls only.
	 */
	public InMemoryRateLimiter() {
		this(Clock.systemUTC(), false);
	}

	/**
	 * Create a limiter.
	 * @param clock the clock that places calls in their windows
	 * @param countRejected whether rejected calls are recorded too
	 */
	public InMemoryRateLimiter(Clock clock, boolean countRejected) {
		this(clock, countRejected, DEFAULT_MAXIMUM_KEYS);
	}

	/**
	 * Create a limiter that holds at most a given number of keys.
	 * @param clock the clock that places calls in their windows
	 * @param countRejected whether rejected calls are recorded too
	 * @param maximumKeys the most keys held at once, at least 1
	 */
	public InMemoryRateLimiter(Clock clock, boolean countRejected, int maximumKeys) {
		this.engine = new InMemoryEngine(clock, countRejected, maximumKeys);
	}

	@Override
	protected RateLimiter delegate() {
		return this.engine;
	}

	/**
	 * Return how many keys were evicted before their windows emptied, to make room for
	 * others while the limiter held its maximum of keys.
	 * @return the number of such keys since the limiter was created
	 */
	public long evictedLiveKeys() {
		return this.engine.evictedLiveKeys();
	}

	/**
	 * Return how many keys are held.
	 * @return the number of keys with a log that is not known to be empty
	 */
	public int size() {
		return this.engine.size();
	}

	/**
	 * Forget every call under every limit, as if the limiter had just been created; for
	 * tests that start each case with full quotas.
	 */
	public void reset() {
		this.engine.reset();
	}

	/**
	 * Evict every key whose windows have emptied by now.
	 */
	public void evictExpired() {
		this.engine.evictExpired();
	}

}
