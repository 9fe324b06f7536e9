package dev.limiter.internal.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * The exact sliding-window log: one sorted set of calls per limit, no unit of time.
 */
final class SlidingLog extends AlgorithmDescriptor {

	SlidingLog() {
		super(Algorithm.SLIDING_LOG);
	}

	@Override
	public String keySuffix(Limit limit) {
		return "";
	}

	@Override
	public long unitMicros(Limit limit) {
		return 0;
	}

	@Override
	public Window newWindow(Limit limit) {
		return new LogWindow(limit);
	}

}
