package dev.limiter.cache;

import java.time.Clock;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.ForwardingRateLimiter;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.Engines;

/**
 * A {@link RateLimiter} decorator that remembers, per caller key and set of limits, until
 * when the store said a call is rejected, and rejects the same call again in the JVM
 * until then, without a round trip.
 * <p>
 * It never admits anything itself, so it can never over-admit. It can neither reject a
 * call the store would admit: when rejected calls are not recorded, the entries of a log
 * only leave it as time passes, and other calls can only add entries, so a call rejected
 * with a retry-after of {@code R} stays rejected for {@code R}. The block is measured
 * from the moment the call was <em>sent</em>, which is no later than the moment the store
 * decided, so the local block ends no later than the store's. Only a call with the same
 * permits as the remembered rejection is answered locally: a larger one would wait longer
 * than the remembered retry-after, a smaller one may pass earlier.
 * <p>
 * It must not wrap a limiter that records rejected calls: those calls have to reach the
 * store. {@link Builder#countRejected(boolean)} makes {@link Builder#build()} return the
 * delegate unchanged in that case.
 * <p>
 * Memory is bounded by {@link Builder#maximumSize(int)}: expired blocks are dropped when
 * the map is full, and while it stays full of live blocks new ones are not remembered
 * (those calls simply go to the store).
 */
public final class RejectionCachingRateLimiter extends ForwardingRateLimiter implements RejectionCache {

	/** The number of blocks remembered when none is configured. */
	public static final int DEFAULT_MAXIMUM_SIZE = 10_000;

	static {
		Engines.register(RejectionCachingRateLimiter.class, (limiter) -> limiter.engine);
	}

	private final RejectionCacheEngine engine;

	private RejectionCachingRateLimiter(RejectionCacheEngine engine) {
		this.engine = engine;
	}

	/**
	 * Start building a decorator around a limiter.
	 * @param delegate the limiter that decides whatever is not blocked locally
	 * @return the builder
	 */
	public static Builder wrap(RateLimiter delegate) {
		if (delegate == null) {
			throw new IllegalArgumentException("delegate must not be null");
		}
		return new Builder(delegate);
	}

	@Override
	protected RateLimiter delegate() {
		return this.engine;
	}

	/**
	 * Return the remembered rejection of the same call, as {@link #acquire} would answer
	 * it now; {@code null} when none is remembered (the call has to reach the store).
	 */
	@Override
	public Decision cachedRejection(String key, long permits, List<Limit> limits) {
		return this.engine.cachedRejection(key, permits, limits);
	}

	/**
	 * Forget every block of a key, so that its next call asks the store: after a reset of
	 * the key, here or on another instance.
	 * @param key the key
	 */
	@Override
	public void forgetCachedRejections(String key) {
		this.engine.forgetCachedRejections(key);
	}

	/**
	 * Return how many blocks are remembered, expired ones included until they are swept.
	 * @return the number of remembered blocks
	 */
	public int size() {
		return this.engine.size();
	}

	/**
	 * Builds a {@link RejectionCachingRateLimiter}.
	 */
	public static final class Builder {

		private final RateLimiter delegate;

		private Clock clock = Clock.systemUTC();

		private int maximumSize = DEFAULT_MAXIMUM_SIZE;

		private boolean countRejected;

		private Builder(RateLimiter delegate) {
			this.delegate = delegate;
		}

		/**
		 * Set the clock that measures how long a block lasts.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			if (clock == null) {
				throw new IllegalArgumentException("clock must not be null");
			}
			this.clock = clock;
			return this;
		}

		/**
		 * Set the most blocks remembered at once.
		 * @param maximumSize the bound, at least 1
		 * @return this builder
		 */
		public Builder maximumSize(int maximumSize) {
			if (maximumSize < 1) {
				throw new IllegalArgumentException("maximumSize must be at least 1, was " + maximumSize);
			}
			this.maximumSize = maximumSize;
			return this;
		}

		/**
		 * Declare whether the delegate records rejected calls; if it does, every call
		 * must reach it and no local blocking happens.
		 * @param countRejected whether the delegate records rejected calls
		 * @return this builder
		 */
		public Builder countRejected(boolean countRejected) {
			this.countRejected = countRejected;
			return this;
		}

		/**
		 * Build the limiter.
		 * @return the decorator, or the delegate itself when rejected calls are recorded
		 */
		public RateLimiter build() {
			if (this.countRejected) {
				return this.delegate;
			}
			return new RejectionCachingRateLimiter(
					new RejectionCacheEngine(this.delegate, this.clock, this.maximumSize));
		}

	}

}
