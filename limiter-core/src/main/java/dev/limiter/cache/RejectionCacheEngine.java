package dev.limiter.cache;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.internal.WatchedDecision;

/**
 * The engine of {@link RejectionCachingRateLimiter}: the blocks it remembers, per caller
 * key and set of limits, and the delegate it asks for the rest.
 */
final class RejectionCacheEngine extends AbstractRateLimiter implements RejectionCache {

	private final RateLimiter delegate;

	private final Clock clock;

	private final int maximumSize;

	private final Map<CacheKey, Block> blocks = new ConcurrentHashMap<>();

	private volatile long nextSweepNanos = Long.MIN_VALUE;

	RejectionCacheEngine(RateLimiter delegate, Clock clock, int maximumSize) {
		this.delegate = delegate;
		this.clock = clock;
		this.maximumSize = maximumSize;
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		CacheKey cacheKey = new CacheKey(key, limits);
		long sentNanos = nanos(this.clock);
		Decision blocked = blocked(cacheKey, permits, sentNanos);
		if (blocked != null) {
			return blocked;
		}
		return answered(cacheKey, permits, sentNanos, acquire(this.delegate, checked(key, permits, limits)));
	}

	@Override
	protected CompletableFuture<Decision> doAcquireAsync(String key, long permits, List<Limit> limits) {
		CacheKey cacheKey = new CacheKey(key, limits);
		long sentNanos = nanos(this.clock);
		Decision blocked = blocked(cacheKey, permits, sentNanos);
		if (blocked != null) {
			return CompletableFuture.completedFuture(blocked);
		}
		return acquireAsync(this.delegate, checked(key, permits, limits))
			.thenApply((decision) -> answered(cacheKey, permits, sentNanos, decision));
	}

	/**
	 * Decide a call under its enforced and watching limits, each answered from the
	 * rejections remembered under its own key as its own acquire would be: a remembered
	 * enforced rejection answers alone, a remembered watching one leaves the store only
	 * the enforced limits to decide.
	 */
	@Override
	protected WatchedDecision doAcquire(CheckedCall enforced, CheckedCall watched) {
		CacheKey enforcedKey = new CacheKey(enforced.key(), enforced.limits());
		long sentNanos = nanos(this.clock);
		Decision blocked = blocked(enforcedKey, enforced.permits(), sentNanos);
		if (blocked != null) {
			return new WatchedDecision(blocked, null);
		}
		CacheKey watchedKey = new CacheKey(watched.key(), watched.limits());
		Decision watchedBlocked = blocked(watchedKey, watched.permits(), sentNanos);
		if (watchedBlocked != null) {
			Decision decision = answered(enforcedKey, enforced.permits(), sentNanos, acquire(this.delegate, enforced));
			return new WatchedDecision(decision, decision.isAllowed() ? watchedBlocked : null);
		}
		return answered(enforcedKey, watchedKey, enforced.permits(), sentNanos,
				acquire(this.delegate, enforced, watched));
	}

	@Override
	protected CompletableFuture<WatchedDecision> doAcquireAsync(CheckedCall enforced, CheckedCall watched) {
		CacheKey enforcedKey = new CacheKey(enforced.key(), enforced.limits());
		long sentNanos = nanos(this.clock);
		Decision blocked = blocked(enforcedKey, enforced.permits(), sentNanos);
		if (blocked != null) {
			return CompletableFuture.completedFuture(new WatchedDecision(blocked, null));
		}
		CacheKey watchedKey = new CacheKey(watched.key(), watched.limits());
		Decision watchedBlocked = blocked(watchedKey, watched.permits(), sentNanos);
		if (watchedBlocked != null) {
			return acquireAsync(this.delegate, enforced).thenApply((decision) -> {
				Decision answer = answered(enforcedKey, enforced.permits(), sentNanos, decision);
				return new WatchedDecision(answer, answer.isAllowed() ? watchedBlocked : null);
			});
		}
		return acquireAsync(this.delegate, enforced, watched)
			.thenApply((decisions) -> answered(enforcedKey, watchedKey, enforced.permits(), sentNanos, decisions));
	}

	private WatchedDecision answered(CacheKey enforcedKey, CacheKey watchedKey, long permits, long sentNanos,
			WatchedDecision decisions) {
		answered(enforcedKey, permits, sentNanos, decisions.enforced());
		if (decisions.watched() != null) {
			answered(watchedKey, permits, sentNanos, decisions.watched());
		}
		return decisions;
	}

	/**
	 * Return the remembered rejection of the same call, as {@link #acquire} would answer
	 * it now; {@code null} when none is remembered (the call has to reach the store).
	 */
	@Override
	public Decision cachedRejection(String key, long permits, List<Limit> limits) {
		return blocked(new CacheKey(key, limits), permits, nanos(this.clock));
	}

	private Decision blocked(CacheKey cacheKey, long permits, long sentNanos) {
		Block block = this.blocks.get(cacheKey);
		if (block != null) {
			if (block.blocks(permits, sentNanos)) {
				return block.rejection(sentNanos);
			}
			if (block.expiredAt(sentNanos)) {
				this.blocks.remove(cacheKey, block);
			}
		}
		return null;
	}

	private Decision answered(CacheKey cacheKey, long permits, long sentNanos, Decision decision) {
		if (!decision.isAllowed() && decision.retryAfter().compareTo(Duration.ZERO) > 0) {
			remember(cacheKey, new Block(permits, sentNanos, nanos(this.clock), decision));
		}
		return decision;
	}

	/**
	 * Give back a decision's permits in the store. A block cached here stays until its
	 * time: it may be stricter than the store for that long, never looser.
	 */
	@Override
	public boolean release(Decision decision) {
		return this.delegate.release(decision);
	}

	@Override
	public boolean finish(Decision decision) {
		return this.delegate.finish(decision);
	}

	@Override
	public void abandon(Decision decision) {
		AbstractRateLimiter engine = Engines.of(this.delegate);
		if (engine != null) {
			engine.abandon(decision);
		}
	}

	@Override
	public boolean moveToNow(Decision decision) {
		return this.delegate.moveToNow(decision);
	}

	/**
	 * Charge a decision in the store. Calls after a charge past the threshold ask the
	 * store, which rejects them, and are remembered from then.
	 */
	@Override
	public Decision charge(Decision decision, long permits) {
		return this.delegate.charge(decision, permits);
	}

	@Override
	public CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		return this.delegate.chargeAsync(decision, permits);
	}

	@Override
	protected List<Usage> doUsage(String key, List<Limit> limits) {
		return this.delegate.usage(key, limits);
	}

	/**
	 * Reset the key in the store, then forget its blocks here.
	 */
	@Override
	protected void doReset(String key, List<Limit> limits) {
		this.delegate.reset(key, limits);
		forgetCachedRejections(key);
	}

	/**
	 * Forget every block of a key, so that its next call asks the store: after a reset of
	 * the key, here or on another instance.
	 * @param key the key
	 */
	@Override
	public void forgetCachedRejections(String key) {
		this.blocks.keySet().removeIf((cached) -> cached.key().equals(key));
	}

	/**
	 * Return how many blocks are remembered, expired ones included until they are swept.
	 * @return the number of remembered blocks
	 */
	int size() {
		return this.blocks.size();
	}

	private void remember(CacheKey cacheKey, Block block) {
		if (this.blocks.size() >= this.maximumSize && !this.blocks.containsKey(cacheKey)) {
			sweep(block.sentNanos);
			if (this.blocks.size() >= this.maximumSize) {
				return;
			}
		}
		// Keep the copy of the limits out of the lookup path: only stored keys own one.
		this.blocks.put(cacheKey.detached(), block);
	}

	private void sweep(long nowNanos) {
		// A map full of live blocks is swept again only once the first of them expires,
		// so a burst of rejections cannot turn every call into a full scan.
		if (nowNanos < this.nextSweepNanos) {
			return;
		}
		long earliest = Long.MAX_VALUE;
		for (Map.Entry<CacheKey, Block> entry : this.blocks.entrySet()) {
			Block block = entry.getValue();
			if (block.expiredAt(nowNanos)) {
				this.blocks.remove(entry.getKey(), block);
			}
			else {
				earliest = Math.min(earliest, block.untilNanos);
			}
		}
		this.nextSweepNanos = earliest;
	}

	private static long nanos(Clock clock) {
		java.time.Instant instant = clock.instant();
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
	}

	/**
	 * The caller key and the limits, compared with their names so that a cached rejection
	 * names the same limit the store named.
	 */
	private record CacheKey(String key, List<Limit> limits) {

		CacheKey detached() {
			return new CacheKey(this.key, List.copyOf(this.limits));
		}

	}

	/**
	 * A remembered rejection: the call's permits, when it was sent and answered, and
	 * until when the same call stays rejected.
	 * <p>
	 * The store decided somewhere between the send and the answer. The block ends at the
	 * earliest moment the call could pass (send + retry-after), so no call is rejected
	 * that the store would admit; the retry-after it reports counts from the latest
	 * (answer + retry-after), so a client that waits that long is never early.
	 */
	private static final class Block {

		private final long permits;

		private final long sentNanos;

		private final long untilNanos;

		private final long retryAtNanos;

		private final long resetAtNanos;

		private final Decision rejection;

		Block(long permits, long sentNanos, long answeredNanos, Decision rejection) {
			long retryAfterNanos = rejection.retryAfter().toNanos();
			this.permits = permits;
			this.sentNanos = sentNanos;
			this.untilNanos = Math.addExact(sentNanos, retryAfterNanos);
			long answered = Math.max(sentNanos, answeredNanos);
			this.retryAtNanos = Math.addExact(answered, retryAfterNanos);
			this.resetAtNanos = Math.addExact(answered, rejection.resetAfter().toNanos());
			this.rejection = rejection;
		}

		boolean blocks(long permits, long nowNanos) {
			// A clock that stepped back before the send time proves nothing: ask the
			// store.
			return permits == this.permits && nowNanos >= this.sentNanos && nowNanos < this.untilNanos;
		}

		boolean expiredAt(long nowNanos) {
			return nowNanos >= this.untilNanos || nowNanos < this.sentNanos;
		}

		Decision rejection(long nowNanos) {
			Duration retryAfter = Duration.ofNanos(this.retryAtNanos - nowNanos);
			Duration resetAfter = Duration.ofNanos(Math.max(this.resetAtNanos, this.retryAtNanos) - nowNanos);
			// The store's clock now, estimated from its clock at the decision.
			long decidedAtMicros = this.rejection.decidedAtMicros() + (nowNanos - this.sentNanos) / 1_000;
			return Decision.rejected(this.rejection.limit(), this.rejection.remaining(), retryAfter, resetAfter,
					decidedAtMicros);
		}

	}

}
