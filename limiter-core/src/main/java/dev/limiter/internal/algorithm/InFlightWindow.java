package dev.limiter.internal.algorithm;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import dev.limiter.Limit;

/**
 * Calls in flight in memory: the end of each held slot's lease by the member of the call
 * that holds it, the twin of {@code in_flight.lua}.
 */
final class InFlightWindow extends Window {

	private final long lease;

	private final long hint;

	private final Map<String, Long> slots = new HashMap<>();

	InFlightWindow(Limit limit) {
		super(limit);
		this.lease = limit.periodMicros();
		this.hint = InFlight.retryHintMicros(limit);
	}

	@Override
	public void load(long now) {
		// a lease that ends at now has ended, as a log's entry scored now - W has left
		this.slots.values().removeIf((end) -> end <= now);
		this.used = this.slots.size();
	}

	@Override
	public void record(long now, long permits) {
		throw new IllegalStateException("A call in flight holds its slot under its member");
	}

	@Override
	public void record(long now, long permits, String member) {
		for (int p = 1; p <= permits; p++) {
			this.slots.put(slot(member, permits, p), now + this.lease);
		}
		this.used = this.slots.size();
	}

	@Override
	public long waitFor(long now, long permits) {
		long excess = this.used + permits - this.threshold;
		long[] ends = this.slots.values().stream().mapToLong(Long::longValue).sorted().toArray();
		return Math.min(ends[(int) excess - 1] - now, this.hint);
	}

	@Override
	public long resetAfter(long now) {
		return this.slots.values().stream().mapToLong((end) -> end - now).max().orElse(0);
	}

	@Override
	public void release(long now, long at, long permits) {
		throw new IllegalStateException("A call in flight gives its slot back under its member");
	}

	@Override
	public void release(long now, long at, long permits, String member) {
		for (int p = 1; p <= permits; p++) {
			this.slots.remove(slot(member, permits, p));
		}
		this.used = this.slots.size();
	}

	@Override
	public boolean renew(long now, String member, long permits) {
		boolean renewed = false;
		for (int p = 1; p <= permits; p++) {
			String slot = slot(member, permits, p);
			Long end = this.slots.get(slot);
			// a lease that ended stays ended: its slot may be another call's by now
			if (end != null && end > now) {
				this.slots.put(slot, now + this.lease);
				renewed = true;
			}
		}
		return renewed;
	}

	@Override
	public long expiresAt() {
		long latest = 0;
		for (Iterator<Long> ends = this.slots.values().iterator(); ends.hasNext();) {
			latest = Math.max(latest, ends.next());
		}
		return latest;
	}

	private static String slot(String member, long permits, int p) {
		return (permits == 1) ? member : member + "." + p;
	}

}
