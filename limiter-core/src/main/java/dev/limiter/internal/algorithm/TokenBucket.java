package dev.limiter.internal.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * The token bucket as GCRA: one theoretical arrival time per limit, the refill interval
 * its unit.
 */
final class TokenBucket extends AlgorithmDescriptor {

	TokenBucket() {
		super(Algorithm.TOKEN_BUCKET);
	}

	@Override
	public String keySuffix(Limit limit) {
		return ":t";
	}

	@Override
	public long unitMicros(Limit limit) {
		return limit.refillMicros();
	}

	@Override
	public Window newWindow(Limit limit) {
		return new TokenBucketWindow(limit);
	}

}
