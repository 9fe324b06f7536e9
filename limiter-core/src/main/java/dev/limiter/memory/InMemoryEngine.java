package dev.limiter.memory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.Usage;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.internal.algorithm.Window;

/**
 * The engine of {@link InMemoryRateLimiter}: the multi-limit decision over each limit's
 * {@link Window}, on a {@link KeyTable}.
 */
final class InMemoryEngine extends AbstractRateLimiter {

	private static final long WARNING_INTERVAL_NANOS = 60_000_000_000L;

	private static final Logger logger = LoggerFactory.getLogger(InMemoryRateLimiter.class);

	private final int maximumKeys;

	private volatile long nextWarning = Long.MIN_VALUE;

	private final Clock clock;

	private final boolean countRejected;

	private final KeyTable<Entry> keys;

	private final java.util.concurrent.atomic.AtomicLong sequence = new java.util.concurrent.atomic.AtomicLong();

	/**
	 * Create a limiter that holds at most a given number of keys.
	 * @param clock the clock that places calls in their windows
	 * @param countRejected whether rejected calls are recorded too
	 * @param maximumKeys the most keys held at once, at least 1
	 */
	InMemoryEngine(Clock clock, boolean countRejected, int maximumKeys) {
		if (clock == null) {
			throw new IllegalArgumentException("clock must not be null");
		}
		if (maximumKeys < 1) {
			throw new IllegalArgumentException("maximumKeys must be at least 1, was " + maximumKeys);
		}
		this.clock = clock;
		this.countRejected = countRejected;
		this.maximumKeys = maximumKeys;
		this.keys = new KeyTable<>(Entry::new, maximumKeys);
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		long now = epochMicros(this.clock);
		if (this.keys.makeRoom(key, now) > 0) {
			warnEvicted();
		}
		String member = AlgorithmDescriptor.anyHoldsSlots(limits) ? member() : null;
		Decision decision = this.keys.with(key,
				(entry) -> entry.acquire(now, permits, limits, this.countRejected, member));
		this.keys.called(now);
		return holding(Decisions.granting(decision, key, permits, limits, member));
	}

	@Override
	protected List<Usage> doUsage(String key, List<Limit> limits) {
		long now = epochMicros(this.clock);
		return this.keys.with(key, (entry) -> entry.usage(now, limits));
	}

	@Override
	protected void doReset(String key, List<Limit> limits) {
		this.keys.with(key, (entry) -> {
			entry.forget(limits);
			return null;
		});
	}

	@Override
	protected Decision doCharge(Decision decision, Decision.Grant grant, long permits) {
		long now = epochMicros(this.clock);
		Decision charged = this.keys.with(grant.key(), (entry) -> entry.charge(now, grant, permits));
		return Decisions.charged(charged, decision);
	}

	@Override
	protected void doMoveToNow(Decision.Grant grant) {
		long now = epochMicros(this.clock);
		this.keys.with(grant.key(), (entry) -> {
			entry.moveToNow(now, grant);
			return null;
		});
	}

	@Override
	protected void doRelease(Decision.Grant grant) {
		long now = epochMicros(this.clock);
		this.keys.with(grant.key(), (entry) -> {
			entry.release(now, grant);
			return null;
		});
	}

	@Override
	protected void doFinish(Decision.Grant grant, List<Limit> inFlight) {
		long now = epochMicros(this.clock);
		this.keys.with(grant.key(), (entry) -> {
			entry.release(now, grant, inFlight);
			return null;
		});
	}

	@Override
	protected void doRenew(List<Decision.Grant> grants) {
		long now = epochMicros(this.clock);
		for (Decision.Grant grant : grants) {
			this.keys.with(grant.key(), (entry) -> {
				entry.renew(now, grant);
				return null;
			});
		}
	}

	private String member() {
		return Long.toString(this.sequence.incrementAndGet(), 36);
	}

	/**
	 * Return how many keys were evicted before their windows emptied, to make room for
	 * others while the limiter held its maximum of keys.
	 * @return the number of such keys since the limiter was created
	 */
	long evictedLiveKeys() {
		return this.keys.evictedLiveKeys();
	}

	private void warnEvicted() {
		long nanos = System.nanoTime();
		if (nanos - this.nextWarning >= 0 || this.nextWarning == Long.MIN_VALUE) {
			this.nextWarning = nanos + WARNING_INTERVAL_NANOS;
			logger.warn("The in-memory rate limiter holds its maximum of {} live keys: the least recently used are "
					+ "evicted to make room for new ones and forget their counts ({} so far; raise the "
					+ "maximum (limiter.memory.maximum-keys) if they are not a flood; this warning repeats at most once a "
					+ "minute)", this.maximumKeys, evictedLiveKeys());
		}
	}

	/**
	 * Return how many keys are held.
	 * @return the number of keys with a log that is not known to be empty
	 */
	int size() {
		return this.keys.size();
	}

	/**
	 * Forget every call under every limit, as if the limiter had just been created; for
	 * tests that start each case with full quotas.
	 */
	void reset() {
		this.keys.clear();
	}

	/**
	 * Evict every key whose windows have emptied by now.
	 */
	void evictExpired() {
		this.keys.sweep(epochMicros(this.clock));
	}

	/**
	 * The state of one caller key, one window per distinct limit, guarded by the entry's
	 * monitor.
	 */
	private static final class Entry extends KeyTable.State {

		private final List<Limit> limits = new ArrayList<>(2);

		private final List<Window> windows = new ArrayList<>(2);

		/** The time (µs) of the key's latest decision. */
		private long latest = Long.MIN_VALUE;

		/**
		 * Return the time a call on this key counts at: callers read the clock before
		 * they take the monitor, so one may arrive with a time before the decision made
		 * just before it, and counts at that decision's time. Otherwise a token bucket
		 * would see less refill than it already granted and reject a call that fits (and
		 * a clock that steps back would do the same).
		 */
		private long at(long now) {
			this.latest = Math.max(this.latest, now);
			return this.latest;
		}

		Decision acquire(long clockNow, long permits, List<Limit> limits, boolean countRejected, String member) {
			long now = at(clockNow);
			int size = limits.size();
			Window[] windows = load(now, limits);
			boolean allowed = true;
			for (int i = 0; i < size; i++) {
				allowed &= !windows[i].penalized(now) && windows[i].used() + permits <= limits.get(i).threshold();
			}
			if (allowed || countRejected) {
				for (int i = 0; i < size; i++) {
					// a rejected call that counts holds no slot: it never ends to give it
					// back
					if (allowed || member == null || !holdsSlots(limits.get(i))) {
						windows[i].record(now, permits, member);
						this.expiresAt = Math.max(this.expiresAt, windows[i].expiresAt());
					}
				}
			}
			if (allowed) {
				int decider = 0;
				long remaining = Long.MAX_VALUE;
				for (int i = 0; i < size; i++) {
					long left = limits.get(i).threshold() - windows[i].used();
					if (left < remaining) {
						remaining = left;
						decider = i;
					}
				}
				return Decision.allowed(limits.get(decider), remaining, ofMicros(windows[decider].resetAfter(now)),
						now);
			}
			// A rejection waits for the limit that frees up last, measured on the windows
			// as they are now (with this call in them when rejected calls count); a limit
			// with a penalty that rejects starts it, and one serving it waits it out.
			int decider = 0;
			long retryAfter = 0;
			for (int i = 0; i < size; i++) {
				Limit limit = limits.get(i);
				long wait;
				if (windows[i].penalized(now)) {
					wait = windows[i].penaltyLeft(now);
				}
				else if (windows[i].used() + permits > limit.threshold()) {
					wait = windows[i].waitFor(now, permits);
					if (limit.penaltyMicros() > 0) {
						this.expiresAt = Math.max(this.expiresAt, windows[i].penalize(now, limit.penaltyMicros()));
						wait = Math.max(wait, limit.penaltyMicros());
					}
				}
				else {
					continue;
				}
				if (retryAfter == 0 || wait > retryAfter) {
					retryAfter = wait;
					decider = i;
				}
			}
			Limit deciding = limits.get(decider);
			long remaining = windows[decider].penalized(now) ? 0
					: Math.max(0, deciding.threshold() - windows[decider].used());
			return Decision.rejected(deciding, remaining, ofMicros(retryAfter),
					ofMicros(windows[decider].resetAfter(now)), now);
		}

		List<Usage> usage(long clockNow, List<Limit> limits) {
			long now = at(clockNow);
			Window[] windows = load(now, limits);
			List<Usage> usage = new ArrayList<>(limits.size());
			for (int i = 0; i < windows.length; i++) {
				Limit limit = limits.get(i);
				long used = windows[i].used();
				long penalty = windows[i].penaltyLeft(now);
				usage.add(new Usage(limit, used, (penalty > 0) ? 0 : Math.max(0, limit.threshold() - used),
						ofMicros(windows[i].resetAfter(now)), windows[i].currentSlice(now), ofMicros(penalty)));
			}
			return usage;
		}

		Decision charge(long clockNow, Decision.Grant grant, long permits) {
			long now = at(clockNow);
			List<Limit> limits = grant.limits();
			Window[] windows = load(now, limits);
			for (Window window : windows) {
				if (permits > 0) {
					window.charge(now, permits);
				}
				else {
					window.release(now, grant.atMicros(), -permits);
				}
				this.expiresAt = Math.max(this.expiresAt, window.expiresAt());
			}
			int decider = 0;
			long remaining = Long.MAX_VALUE;
			for (int i = 0; i < windows.length; i++) {
				long left = limits.get(i).threshold() - windows[i].used();
				if (left < remaining) {
					remaining = left;
					decider = i;
				}
			}
			return Decision.allowed(limits.get(decider), Math.max(0, remaining),
					ofMicros(windows[decider].resetAfter(now)), now);
		}

		void moveToNow(long clockNow, Decision.Grant grant) {
			long now = at(clockNow);
			Window[] windows = load(now, grant.limits());
			for (Window window : windows) {
				window.release(now, grant.atMicros(), grant.permits(), grant.member());
				window.record(now, grant.permits(), grant.member());
				this.expiresAt = Math.max(this.expiresAt, window.expiresAt());
			}
		}

		void release(long clockNow, Decision.Grant grant) {
			release(clockNow, grant, grant.limits());
		}

		void release(long clockNow, Decision.Grant grant, List<Limit> limits) {
			long now = at(clockNow);
			Window[] windows = load(now, limits);
			for (Window window : windows) {
				window.release(now, grant.atMicros(), grant.permits(), grant.member());
			}
		}

		void renew(long clockNow, Decision.Grant grant) {
			long now = at(clockNow);
			for (int i = 0; i < this.limits.size(); i++) {
				for (Limit limit : grant.limits()) {
					if (holdsSlots(limit) && this.limits.get(i).sameWindowAs(limit)) {
						this.windows.get(i).renew(now, grant.member(), grant.permits());
						this.expiresAt = Math.max(this.expiresAt, this.windows.get(i).expiresAt());
					}
				}
			}
		}

		private static boolean holdsSlots(Limit limit) {
			return AlgorithmDescriptor.of(limit.algorithm()).holdsSlots();
		}

		void forget(List<Limit> limits) {
			for (Limit limit : limits) {
				for (int i = 0; i < this.limits.size(); i++) {
					if (this.limits.get(i).sameWindowAs(limit)) {
						this.limits.remove(i);
						this.windows.remove(i);
						break;
					}
				}
			}
		}

		private Window[] load(long now, List<Limit> limits) {
			Window[] windows = new Window[limits.size()];
			for (int i = 0; i < windows.length; i++) {
				windows[i] = window(limits.get(i), now);
				windows[i].load(now);
				// a changed threshold can make a window count for longer than it did
				this.expiresAt = Math.max(this.expiresAt, windows[i].expiresAt());
			}
			return windows;
		}

		private Window window(Limit limit, long now) {
			for (int i = 0; i < this.limits.size(); i++) {
				if (this.limits.get(i).sameWindowAs(limit)) {
					Window window = this.windows.get(i);
					if (window.threshold() != limit.threshold()) {
						window.retarget(limit, now);
					}
					return window;
				}
			}
			Window window = AlgorithmDescriptor.of(limit.algorithm()).newWindow(limit);
			this.limits.add(limit);
			this.windows.add(window);
			return window;
		}

	}

}
