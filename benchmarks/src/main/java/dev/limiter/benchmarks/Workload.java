package dev.limiter.benchmarks;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import dev.limiter.Limit;

/**
 * The traffic shapes every contender is measured under: which keys are asked for, how
 * often, and under which limit.
 */
public enum Workload {

	/** 100k keys chosen uniformly, 10 per second each: nearly every call is admitted. */
	UNIFORM("uniform", 100_000, 0, Limit.of(10, Duration.ofSeconds(1))),

	/** 10k keys with Zipf(1.0) popularity, 10 per second each: the head is rejected. */
	ZIPF("zipf", 10_000, 1.0, Limit.of(10, Duration.ofSeconds(1))),

	/**
	 * 100 keys far over their limit of 10 per 10 seconds: nearly every call is rejected.
	 */
	REJECT_HEAVY("reject-heavy", 100, 0, Limit.of(10, Duration.ofSeconds(10))),

	/** One key for every thread, 100 per second. */
	HOT_KEY("hot-key", 1, 0, Limit.of(100, Duration.ofSeconds(1)));

	private final String id;

	private final String[] keys;

	private final double[] cumulative;

	private final Limit limit;

	Workload(String id, int keyCount, double zipfExponent, Limit limit) {
		this.id = id;
		this.limit = limit;
		this.keys = new String[keyCount];
		for (int i = 0; i < keyCount; i++) {
			this.keys[i] = id + ":" + i;
		}
		this.cumulative = (zipfExponent > 0) ? zipf(keyCount, zipfExponent) : null;
	}

	public static Workload of(String id) {
		for (Workload workload : values()) {
			if (workload.id.equals(id)) {
				return workload;
			}
		}
		throw new IllegalArgumentException("Unknown workload " + id);
	}

	public String id() {
		return this.id;
	}

	public Limit limit() {
		return this.limit;
	}

	public int keyCount() {
		return this.keys.length;
	}

	/**
	 * Return the next key for the calling thread.
	 * @return the key
	 */
	public String nextKey() {
		if (this.keys.length == 1) {
			return this.keys[0];
		}
		ThreadLocalRandom random = ThreadLocalRandom.current();
		if (this.cumulative == null) {
			return this.keys[random.nextInt(this.keys.length)];
		}
		int index = java.util.Arrays.binarySearch(this.cumulative, random.nextDouble());
		return this.keys[Math.min((index < 0) ? -index - 1 : index, this.keys.length - 1)];
	}

	private static double[] zipf(int n, double exponent) {
		double[] cumulative = new double[n];
		double sum = 0;
		for (int i = 0; i < n; i++) {
			sum += 1 / Math.pow(i + 1, exponent);
			cumulative[i] = sum;
		}
		for (int i = 0; i < n; i++) {
			cumulative[i] /= sum;
		}
		return cumulative;
	}

}
