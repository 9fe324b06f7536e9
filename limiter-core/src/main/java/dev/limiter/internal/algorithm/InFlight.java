package dev.limiter.internal.algorithm;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * Calls in flight: one slot per running call, held until the call ends or its lease (the
 * limit's period) ends unrenewed; the unit is the retry hint of a refusal.
 */
final class InFlight extends AlgorithmDescriptor {

	InFlight() {
		super(Algorithm.IN_FLIGHT);
	}

	@Override
	public String keySuffix(Limit limit) {
		return ":f";
	}

	@Override
	public long unitMicros(Limit limit) {
		return retryHintMicros(limit);
	}

	@Override
	public boolean holdsSlots() {
		return true;
	}

	@Override
	public Window newWindow(Limit limit) {
		return new InFlightWindow(limit);
	}

	/**
	 * Return the wait a refusal names: a slot frees when any call of the key ends, which
	 * no one can know, so the wait is the sooner of the next lease to end and this hint,
	 * and a remembered refusal is answered from memory for no longer.
	 * @param limit the in-flight limit
	 * @return the hint in microseconds
	 */
	static long retryHintMicros(Limit limit) {
		return Math.min(RETRY_HINT.toNanos() / 1_000, limit.periodMicros());
	}

	/** The longest wait an in-flight refusal names. */
	static final Duration RETRY_HINT = Duration.ofMillis(250);

}
