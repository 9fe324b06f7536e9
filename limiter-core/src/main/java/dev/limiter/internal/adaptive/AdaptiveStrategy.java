package dev.limiter.internal.adaptive;

/**
 * How an adaptive limit moves: given the limit and the calls that ended in the last
 * window (their round trips, whether any was dropped, how many calls were in flight at
 * most), the next limit. Called once per window, one window at a time; the
 * {@link AdaptiveLimit} keeps the result between its minimum and maximum.
 */
public interface AdaptiveStrategy {

	/**
	 * Return the next limit.
	 * @param limit the limit now
	 * @param sample the calls of the window
	 * @return the next limit, unbounded
	 */
	double next(double limit, Sample sample);

	/**
	 * The admitted calls that ended in one window.
	 *
	 * @param rttNanos their mean round trip, from admission to end
	 * @param minRttNanos the shortest of them
	 * @param inFlight the most calls in flight when one of them was admitted
	 * @param dropped whether one failed as an overloaded backend fails: a server error, a
	 * timeout, an upstream's 429 or 503
	 * @param nowNanos when the window ended, on the limit's clock
	 */
	record Sample(long rttNanos, long minRttNanos, int inFlight, boolean dropped, long nowNanos) {
	}

	/**
	 * Return the strategy of a name: {@code gradient}, {@code vegas} or {@code aimd}.
	 * @param name the name, as in {@code limiter.limits.<name>.adaptive.strategy}
	 * @return a new strategy, with state of its own
	 * @throws IllegalArgumentException for another name
	 */
	static AdaptiveStrategy of(String name) {
		return switch (name) {
			case "gradient" -> new GradientStrategy();
			case "vegas" -> new VegasStrategy();
			case "aimd" -> new AimdStrategy();
			default -> throw new IllegalArgumentException(
					"Unknown adaptive strategy '" + name + "': use gradient, vegas or aimd");
		};
	}

}
