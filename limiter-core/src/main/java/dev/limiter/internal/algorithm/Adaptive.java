package dev.limiter.internal.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * Calls in flight up to a limit each instance learns; decided in the application, never
 * in a store, so it has no key, unit or window of its own. The engines refuse it before
 * any of these is asked.
 */
final class Adaptive extends AlgorithmDescriptor {

	Adaptive() {
		super(Algorithm.ADAPTIVE);
	}

	@Override
	public String keySuffix(Limit limit) {
		throw notStored(limit);
	}

	@Override
	public long unitMicros(Limit limit) {
		throw notStored(limit);
	}

	@Override
	public boolean countsCallsInFlight() {
		return true;
	}

	@Override
	public Window newWindow(Limit limit) {
		throw notStored(limit);
	}

	private static IllegalStateException notStored(Limit limit) {
		return new IllegalStateException("The adaptive limit " + limit + " is decided by each instance, not stored");
	}

}
