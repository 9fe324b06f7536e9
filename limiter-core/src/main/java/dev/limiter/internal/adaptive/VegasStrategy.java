package dev.limiter.internal.adaptive;

/**
 * TCP Vegas' estimate of the queue: with the shortest round trip seen as the time without
 * a queue, {@code limit × (1 − shortest / rtt)} calls wait at the backend. Fewer than
 * {@code 3·log10(limit)} waiting raises the limit by {@code log10(limit)} (when the limit
 * is used), more than {@code 6·log10(limit)} lowers it as much, and so does a drop. The
 * shortest round trip drifts up by {@link #DRIFT} a window unless a quicker call renews
 * it, so a backend that became slower for good is measured anew within minutes, without
 * ever forgetting it all at once in the middle of an overload. The drift is slow on
 * purpose: under a limit above the backend's capacity no call ever finds the queue empty,
 * and a faster drift (half a percent a window, measured over HTTP) took the queue for the
 * backend's own time within seconds and let the limit climb after the capacity halved.
 */
final class VegasStrategy implements AdaptiveStrategy {

	static final double DRIFT = 1.0 / 3000;

	private double shortest = Double.MAX_VALUE;

	@Override
	public double next(double limit, Sample sample) {
		this.shortest = Math.min(this.shortest * (1 + DRIFT), Math.max(1, sample.minRttNanos()));
		double step = Math.max(1, Math.log10(limit));
		if (sample.dropped()) {
			return limit - step;
		}
		double queue = limit * (1 - this.shortest / Math.max(1, sample.rttNanos()));
		if (queue < 3 * step) {
			return (sample.inFlight() * 2 >= limit) ? limit + step : limit;
		}
		return (queue > 6 * step) ? limit - step : limit;
	}

}
