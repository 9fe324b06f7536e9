package dev.limiter.internal.algorithm;

import java.util.List;
import java.util.Locale;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * Everything the engines need to know of one algorithm, in one place: the name of its Lua
 * fragment, its unit of time in the script, the suffix of its Redis key, and its
 * in-memory twin. Adding an algorithm is adding a constant to {@link Algorithm}, a
 * descriptor and a {@link Window} here, a fragment in
 * {@code META-INF/scripts/algorithms/}, and a line in {@link #DESCRIPTORS}.
 */
public abstract class AlgorithmDescriptor {

	private static final List<AlgorithmDescriptor> DESCRIPTORS = List.of(new SlidingLog(), new SlidingBuckets(),
			new TokenBucket(), new Calendar(), new InFlight(), new Adaptive());

	private static final List<Algorithm> STORED = java.util.Arrays.stream(Algorithm.values())
		.filter(Algorithm::isStored)
		.toList();

	private static final AlgorithmDescriptor[] BY_ORDINAL = byOrdinal();

	private final Algorithm algorithm;

	AlgorithmDescriptor(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	/**
	 * Return the algorithms the stores count, in the order of their ordinals: the script
	 * is composed of their fragments only.
	 * @return the stored algorithms
	 */
	public static List<Algorithm> stored() {
		return STORED;
	}

	/**
	 * Return the descriptor of an algorithm.
	 * @param algorithm the algorithm
	 * @return its descriptor
	 */
	public static AlgorithmDescriptor of(Algorithm algorithm) {
		return BY_ORDINAL[algorithm.ordinal()];
	}

	/**
	 * Return the algorithm described.
	 * @return the algorithm
	 */
	public Algorithm algorithm() {
		return this.algorithm;
	}

	/**
	 * Return the algorithm's code in the script: the file name of its fragment (without
	 * {@code .lua}) and the key of its functions in the script's {@code algorithms}
	 * table.
	 * @return the code, such as {@code sliding_log}
	 */
	public String code() {
		return this.algorithm.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Return what the Redis key of a limit's state ends with, after its threshold and
	 * period, so that two algorithms, or two bucket counts, never read each other's
	 * state.
	 * @param limit the limit
	 * @return the suffix, possibly empty
	 */
	public abstract String keySuffix(Limit limit);

	/**
	 * Return the algorithm's unit of time for a limit, as the script receives it: a
	 * slice, a refill interval, or none.
	 * @param limit the limit
	 * @return the unit in microseconds, 0 for none
	 */
	public abstract long unitMicros(Limit limit);

	/**
	 * Return the algorithm's unit as the script's argument for a call at
	 * {@code nowMicros} on the application's clock; the unit in microseconds unless the
	 * algorithm needs more (the boundaries of a calendar's windows).
	 * @param limit the limit
	 * @param nowMicros the application's clock
	 * @return the argument
	 */
	public String unitArgument(Limit limit, long nowMicros) {
		return Long.toString(unitMicros(limit));
	}

	/**
	 * Return whether the script's unit argument depends on the time of the call.
	 * @return whether {@link #unitArgument} must be asked on each call
	 */
	public boolean unitDependsOnTime() {
		return false;
	}

	/**
	 * Return whether the algorithm holds a slot per running call, given back when the
	 * call ends ({@code RateLimiter.finish}) and kept by renewing its lease.
	 * @return whether calls hold slots
	 */
	public boolean holdsSlots() {
		return false;
	}

	/**
	 * Return whether the algorithm counts calls running rather than calls per window: its
	 * limit has no window and no reset, and a slot frees whenever a call ends.
	 * @return whether it counts calls in flight
	 */
	public boolean countsCallsInFlight() {
		return holdsSlots();
	}

	/**
	 * Return whether any of the limits holds slots.
	 * @param limits the limits
	 * @return whether one of them is an in-flight limit
	 */
	public static boolean anyHoldsSlots(List<Limit> limits) {
		for (int i = 0; i < limits.size(); i++) {
			if (of(limits.get(i).algorithm()).holdsSlots()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return a fresh in-memory state of a limit for one key.
	 * @param limit the limit
	 * @return the window
	 */
	public abstract Window newWindow(Limit limit);

	private static AlgorithmDescriptor[] byOrdinal() {
		AlgorithmDescriptor[] descriptors = new AlgorithmDescriptor[Algorithm.values().length];
		for (AlgorithmDescriptor descriptor : DESCRIPTORS) {
			descriptors[descriptor.algorithm().ordinal()] = descriptor;
		}
		for (Algorithm algorithm : Algorithm.values()) {
			if (descriptors[algorithm.ordinal()] == null) {
				throw new IllegalStateException("No AlgorithmDescriptor for " + algorithm);
			}
		}
		return descriptors;
	}

}
