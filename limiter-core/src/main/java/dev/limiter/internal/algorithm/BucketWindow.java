package dev.limiter.internal.algorithm;

import dev.limiter.Limit;

/**
 * Sliding buckets: a ring of counters, one per slice. A decision counts the current slice
 * and the {@code m} whole slices before it, where {@code m} slices cover the period, so
 * no interval of one period ever holds more than the threshold.
 */
final class BucketWindow extends Window {

	private final long slice;

	private final long covering;

	private final long[] indexes;

	private final long[] counts;

	private long current;

	BucketWindow(Limit limit) {
		super(limit);
		this.slice = limit.sliceMicros();
		this.covering = (limit.periodMicros() + this.slice - 1) / this.slice;
		this.indexes = new long[(int) this.covering + 1];
		this.counts = new long[this.indexes.length];
		java.util.Arrays.fill(this.indexes, Long.MIN_VALUE);
	}

	@Override
	public void load(long now) {
		this.current = Math.floorDiv(now, this.slice);
		long used = 0;
		for (int i = 0; i < this.counts.length; i++) {
			if (this.indexes[i] < this.current - this.covering) {
				this.counts[i] = 0;
			}
			used += this.counts[i];
		}
		this.used = used;
	}

	@Override
	public void record(long now, long permits) {
		charge(now, permits);
		// only rejected calls that count get past the threshold: keep the newest permits
		long over = this.used - this.threshold;
		for (long index = this.current - this.covering; over > 0 && index <= this.current; index++) {
			long taken = Math.min(count(index), over);
			if (taken > 0) {
				this.counts[position(index)] -= taken;
				over -= taken;
				this.used -= taken;
			}
		}
	}

	@Override
	public void charge(long now, long permits) {
		int position = position(this.current);
		if (this.indexes[position] != this.current) {
			this.indexes[position] = this.current;
			this.counts[position] = 0;
		}
		this.counts[position] += permits;
		this.used += permits;
	}

	@Override
	public long waitFor(long now, long permits) {
		long needed = this.used + permits - this.threshold;
		long freed = 0;
		for (long index = this.current - this.covering; index <= this.current; index++) {
			freed += count(index);
			if (freed >= needed) {
				return leaves(index) - now;
			}
		}
		return leaves(this.current) - now;
	}

	@Override
	public long resetAfter(long now) {
		long newest = newest();
		return (newest != Long.MIN_VALUE) ? leaves(newest) - now : 0;
	}

	@Override
	public void release(long now, long at, long permits) {
		long index = Math.floorDiv(at, this.slice);
		if (index >= this.current - this.covering && index <= this.current) {
			long taken = Math.min(count(index), permits);
			this.counts[position(index)] -= taken;
			this.used -= taken;
		}
	}

	@Override
	public long currentSlice(long now) {
		return count(this.current);
	}

	@Override
	public long expiresAt() {
		long newest = newest();
		return (newest != Long.MIN_VALUE) ? leaves(newest) : 0;
	}

	private long newest() {
		for (long index = this.current; index >= this.current - this.covering; index--) {
			if (count(index) > 0) {
				return index;
			}
		}
		return Long.MIN_VALUE;
	}

	/** The time at which a slice stops being counted. */
	private long leaves(long index) {
		return (index + this.covering + 1) * this.slice;
	}

	private long count(long index) {
		int position = position(index);
		return (this.indexes[position] == index) ? this.counts[position] : 0;
	}

	private int position(long index) {
		return (int) Math.floorMod(index, (long) this.counts.length);
	}

}
