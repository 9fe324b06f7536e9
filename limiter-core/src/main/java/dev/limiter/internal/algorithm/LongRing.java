package dev.limiter.internal.algorithm;

import java.util.Arrays;

/**
 * A growable ring of {@code long} timestamps, oldest first; not thread-safe.
 */
final class LongRing {

	private long[] items;

	private int head;

	private int size;

	LongRing(int capacity) {
		this.items = new long[Math.max(2, capacity)];
	}

	int size() {
		return this.size;
	}

	long get(int index) {
		return this.items[(this.head + index) % this.items.length];
	}

	long first() {
		return get(0);
	}

	long last() {
		return get(this.size - 1);
	}

	void removeFirst(int count) {
		this.head = (this.head + count) % this.items.length;
		this.size -= count;
		if (this.size == 0) {
			this.head = 0;
		}
	}

	void add(long value, long times) {
		for (long i = 0; i < times; i++) {
			if (this.size == this.items.length) {
				grow();
			}
			this.items[(this.head + this.size) % this.items.length] = value;
			this.size++;
		}
	}

	/**
	 * Remove up to {@code count} entries equal to {@code value}, newest first, keeping
	 * the order of the rest.
	 */
	void remove(long value, long count) {
		long[] kept = new long[this.items.length];
		int size = 0;
		long left = count;
		for (int i = this.size - 1; i >= 0; i--) {
			long item = get(i);
			if (left > 0 && item == value) {
				left--;
			}
			else {
				kept[kept.length - 1 - size++] = item;
			}
		}
		this.items = kept;
		this.head = kept.length - size;
		this.size = size;
		if (this.size == 0) {
			this.head = 0;
		}
	}

	private void grow() {
		long[] grown = new long[this.items.length * 2];
		for (int i = 0; i < this.size; i++) {
			grown[i] = get(i);
		}
		this.items = grown;
		this.head = 0;
	}

	@Override
	public String toString() {
		long[] copy = new long[this.size];
		for (int i = 0; i < this.size; i++) {
			copy[i] = get(i);
		}
		return Arrays.toString(copy);
	}

}
