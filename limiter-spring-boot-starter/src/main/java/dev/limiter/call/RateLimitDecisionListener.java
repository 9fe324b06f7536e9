package dev.limiter.call;

import dev.limiter.Decision;

/**
 * Told of every decision a {@code @RateLimit} call gets, before the method runs or the
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

	/**
	 * Called with a decision and the time it took; the default forgets the time.
	 * @param operation the operation that was decided
	 * @param decision the decision
	 * @param nanos how long the decision took, the store's answer included
	 */
	default void onDecision(RateLimitOperation operation, Decision decision, long nanos) {
		onDecision(operation, decision);
	}

	/**
	 * Called with a decision, the call it decided (whose request a web stack may write
	 * to) and the time it took; the default passes the operation on. A rejection known
	 * before the call's arguments were resolved comes with no arguments.
	 * @param invocation the call that was decided
	 * @param decision the decision
	 * @param nanos how long the decision took, the store's answer included
	 */
	default void onDecision(RateLimitInvocation invocation, Decision decision, long nanos) {
		onDecision(invocation.operation(), decision, nanos);
	}

	/**
	 * Called with the decision of an operation's shadowed limits, which never rejects the
	 * call; clients are not told of it. The default ignores it.
	 * @param operation the operation that was decided
	 * @param decision the decision under its shadowed limits
	 */
	default void onShadowDecision(RateLimitOperation operation, Decision decision) {
	}

	/**
	 * Called with the decision after a call's real cost was settled
	 * ({@code @RateLimit(charge = ...)}): its remaining permits and reset after the
	 * charge. The default ignores it; the web layer rewrites the quota headers of a
	 * response that is not committed yet.
	 * @param invocation the call that was charged
	 * @param decision the decision after the charge
	 */
	default void onCharge(RateLimitInvocation invocation, Decision decision) {
	}

}
