package dev.limiter.internal.adaptive;

/**
 * The gradient of round-trip times: a baseline of them against the latest window's mean.
 * While calls take no longer than {@link #TOLERANCE} times the baseline, the limit may
 * grow by a small queue ({@code sqrt(limit)}) when it is used; when they take longer it
 * shrinks in proportion, at most by half at once; a drop counts as the largest shrink.
 * Each move is smoothed, a fifth of the way at a time.
 * <p>
 * The baseline follows a quicker window at once, and a slower one only by
 * {@code 1/}{@link #LONG_WINDOW} of the difference: queueing cannot drag it up with it
 * (the limit would then grow until calls time out), while a backend that became slower
 * for good is accepted within minutes.
 */
final class GradientStrategy implements AdaptiveStrategy {

	static final int LONG_WINDOW = 3000;

	static final double TOLERANCE = 1.5;

	static final double SMOOTHING = 0.2;

	private double baseline = Double.MAX_VALUE;

	@Override
	public double next(double limit, Sample sample) {
		double rtt = Math.max(1, sample.rttNanos());
		this.baseline = (rtt < this.baseline) ? rtt : this.baseline + (rtt - this.baseline) / LONG_WINDOW;
		double gradient = sample.dropped() ? 0.5 : Math.max(0.5, Math.min(1.0, TOLERANCE * this.baseline / rtt));
		boolean used = sample.inFlight() * 2 >= limit;
		double queue = (gradient >= 1.0 && used) ? Math.sqrt(limit) : 0;
		double target = limit * gradient + queue;
		if (target > limit && !used) {
			return limit;
		}
		return limit * (1 - SMOOTHING) + target * SMOOTHING;
	}

}
