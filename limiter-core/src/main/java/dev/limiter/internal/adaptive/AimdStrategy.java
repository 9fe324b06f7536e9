package dev.limiter.internal.adaptive;

/**
 * Additive increase, multiplicative decrease: a dropped call cuts the limit by a tenth; a
 * call that ended well while the limit was at least half used raises it by one. Only
 * drops lower it, so it suits a backend that says when it is overloaded (429, 503,
 * timeouts).
 */
final class AimdStrategy implements AdaptiveStrategy {

	static final double BACKOFF = 0.9;

	@Override
	public double next(double limit, Sample sample) {
		if (sample.dropped()) {
			return limit * BACKOFF;
		}
		return (sample.inFlight() * 2 >= limit) ? limit + 1 : limit;
	}

}
