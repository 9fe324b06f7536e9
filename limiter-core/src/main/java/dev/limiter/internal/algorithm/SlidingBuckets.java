package dev.limiter.internal.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * Sliding buckets: a hash of per-slice counters, the slice its unit; the key names the
 * number of slices, so a limit that changes it starts a fresh state.
 */
final class SlidingBuckets extends AlgorithmDescriptor {

	SlidingBuckets() {
		super(Algorithm.SLIDING_BUCKETS);
	}

	@Override
	public String keySuffix(Limit limit) {
		return ":b" + limit.slices();
	}

	@Override
	public long unitMicros(Limit limit) {
		return limit.sliceMicros();
	}

	@Override
	public Window newWindow(Limit limit) {
		return new BucketWindow(limit);
	}

}
