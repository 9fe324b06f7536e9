package dev.limiter.memory;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The keys the in-memory engine holds: one state per key, each used under its own
 * monitor, at most a maximum of them at once (give or take one per concurrent caller), a
 * sweep, amortized over the calls, that drops the keys whose windows have emptied, and,
 * when the table is full of live keys, the eviction of the least recently used sixteenth
 * to make room. It knows nothing of limits or decisions.
 *
 * @param <S> the state of one key
 */
final class KeyTable<S extends KeyTable.State> {

	private static final int MIN_SWEEP_INTERVAL = 1024;

	/** The share of a full table evicted at once: one sort per 1/16 of new keys. */
	private static final int EVICTED_SHARE = 16;

	private final Map<String, S> states = new ConcurrentHashMap<>();

	private final Supplier<S> newState;

	private final int maximumKeys;

	private final AtomicLong calls = new AtomicLong();

	private volatile long nextSweep = MIN_SWEEP_INTERVAL;

	/** While the table is full, the earliest time (µs) a held key can expire. */
	private volatile long fullUntil = Long.MIN_VALUE;

	private final AtomicLong evicted = new AtomicLong();

	private final Object evictionLock = new Object();

	KeyTable(Supplier<S> newState, int maximumKeys) {
		this.newState = newState;
		this.maximumKeys = maximumKeys;
	}

	/**
	 * Make room for a key if it is not held and the table is full: drop the keys whose
	 * windows have emptied, or, when none has, the least recently used live keys. A table
	 * full of live keys is not swept before the earliest of them can expire, so that it
	 * does not scan them all on every new key.
	 * @return how many live keys were evicted to make room, 0 when none was
	 */
	int makeRoom(String key, long now) {
		if (this.states.size() < this.maximumKeys || this.states.containsKey(key)) {
			return 0;
		}
		if (now >= this.fullUntil) {
			sweep(now);
			if (this.states.size() < this.maximumKeys) {
				return 0;
			}
		}
		return evictLeastRecentlyUsed();
	}

	/**
	 * Evict the least recently used sixteenth of the table (at least one key). Callers
	 * that find the table full at once wait for one eviction rather than each run their
	 * own.
	 */
	private int evictLeastRecentlyUsed() {
		synchronized (this.evictionLock) {
			int size = this.states.size();
			if (size < this.maximumKeys) {
				return 0;
			}
			long[] uses = new long[size];
			int n = 0;
			for (S state : this.states.values()) {
				if (n == uses.length) {
					break;
				}
				uses[n++] = state.used;
			}
			Arrays.sort(uses, 0, n);
			int target = Math.max(1, size / EVICTED_SHARE);
			long coldest = uses[Math.min(n, target) - 1];
			int removed = 0;
			for (Iterator<S> iterator = this.states.values().iterator(); iterator.hasNext() && removed < target;) {
				S state = iterator.next();
				synchronized (state) {
					if (state.used <= coldest) {
						state.evicted = true;
						iterator.remove();
						removed++;
					}
				}
			}
			this.evicted.addAndGet(removed);
			return removed;
		}
	}

	/**
	 * Return how many live keys were evicted to make room for others.
	 * @return the number of keys dropped before their windows emptied
	 */
	long evictedLiveKeys() {
		return this.evicted.get();
	}

	/**
	 * Run an action on a key's state under its monitor, the state created if need be; a
	 * state that a sweep dropped meanwhile is never used.
	 */
	<T> T with(String key, Function<S, T> action) {
		while (true) {
			S state = this.states.computeIfAbsent(key, (k) -> this.newState.get());
			synchronized (state) {
				if (!state.evicted) {
					state.used = this.calls.get();
					return action.apply(state);
				}
			}
		}
	}

	/** Count a call, and sweep when enough calls came since the last sweep. */
	void called(long now) {
		if (this.calls.incrementAndGet() >= this.nextSweep) {
			sweep(now);
		}
	}

	int size() {
		return this.states.size();
	}

	void clear() {
		this.states.clear();
	}

	/** Drop every key whose windows have emptied by now. */
	void sweep(long now) {
		this.nextSweep = this.calls.get() + Math.max(MIN_SWEEP_INTERVAL, this.states.size());
		long earliest = Long.MAX_VALUE;
		for (Iterator<Map.Entry<String, S>> iterator = this.states.entrySet().iterator(); iterator.hasNext();) {
			S state = iterator.next().getValue();
			synchronized (state) {
				if (state.expiresAt <= now) {
					state.evicted = true;
					iterator.remove();
				}
				else {
					earliest = Math.min(earliest, state.expiresAt);
				}
			}
		}
		this.fullUntil = (this.states.size() >= this.maximumKeys) ? earliest : Long.MIN_VALUE;
	}

	/**
	 * What the table needs of a key's state: when it empties, and whether it was dropped.
	 * Both are read and written under the state's monitor.
	 */
	abstract static class State {

		/** The time (µs) at which every window of the key is empty. */
		long expiresAt;

		/** Whether a sweep dropped the key: a caller holding the state asks again. */
		boolean evicted;

		/**
		 * The table's call count when the key was last used: the order in which a full
		 * table evicts.
		 */
		volatile long used;

	}

}
