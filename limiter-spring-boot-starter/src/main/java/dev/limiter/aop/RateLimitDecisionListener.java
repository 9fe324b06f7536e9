package dev.limiter.aop;

import dev.limiter.Decision;

/**
 * Told of every decision the {@link RateLimitAspect} gets, before the method runs or the
 * rejection is thrown; the web layer uses it to add quota headers to admitted responses.
 */
@FunctionalInterface
public interface RateLimitDecisionListener {

	/**
	 * Called with a decision.
	 * @param operation the operation that was decided
	 * @param decision the decision
	 */
	void onDecision(RateLimitOperation operation, Decision decision);

}
