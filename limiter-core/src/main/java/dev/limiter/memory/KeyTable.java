package dev.limiter.memory;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The keys the in-memory engine holds: one state per key, each used under its own
 * monitor, at most a maximum of them at once (give or take one per concurrent caller),
 * and a sweep, amortized over the calls, that drops the keys whose windows have emptied.
 * It knows nothing of limits or decisions.
 *
 * @param <S> the state of one key
 */
final class KeyTable<S extends KeyTable.State> {

	private static final int MIN_SWEEP_INTERVAL = 1024;

	private final Map<String, S> states = new ConcurrentHashMap<>();

	private final Supplier<S> newState;

	private final int maximumKeys;

	private final AtomicLong calls = new AtomicLong();

	private volatile long nextSweep = MIN_SWEEP_INTERVAL;

	/** While the table is full, the earliest time (µs) a held key can expire. */
	private volatile long fullUntil = Long.MIN_VALUE;

	KeyTable(Supplier<S> newState, int maximumKeys) {
		this.newState = newState;
		this.maximumKeys = maximumKeys;
	}

	/**
	 * Return whether a key can be held now: it is held already, or there is room, if need
	 * be after a sweep. A table full of live keys is not swept before the earliest of
	 * them can expire, so that it does not scan them all on every call.
	 */
	boolean canHold(String key, long now) {
		if (this.states.size() < this.maximumKeys || this.states.containsKey(key)) {
			return true;
		}
		if (now < this.fullUntil) {
			return false;
		}
		sweep(now);
		return this.states.size() < this.maximumKeys;
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

	}

}
