package dev.limiter.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;

/**
 * The part of {@link Decision} that only Limiter's own stores and decorators use: a
 * decision that remembers its grant for a refund, a decision taken by a failure policy,
 * and the one-time claim of a grant. The value type keeps these private, so that users
 * see a plain answer; this class reaches them through method handles, looked up once.
 */
public final class Decisions {

	private static final MethodHandle GRANTING;

	private static final MethodHandle DECIDED_BY;

	private static final MethodHandle CLAIM;

	private static final MethodHandle KEEPING;

	private static final MethodHandle CLAIMED;

	private static final MethodHandle CLAIM_SLOTS;

	static {
		try {
			MethodHandles.Lookup decision = MethodHandles.privateLookupIn(Decision.class, MethodHandles.lookup());
			GRANTING = decision.findVirtual(Decision.class, "granting",
					MethodType.methodType(Decision.class, String.class, long.class, List.class, String.class));
			DECIDED_BY = decision.findVirtual(Decision.class, "decidedBy",
					MethodType.methodType(Decision.class, FailurePolicy.class));
			KEEPING = decision.findVirtual(Decision.class, "keeping",
					MethodType.methodType(Decision.class, Decision.Grant.class));
			MethodHandles.Lookup grant = MethodHandles.privateLookupIn(Decision.Grant.class, MethodHandles.lookup());
			CLAIM = grant.findVirtual(Decision.Grant.class, "claim", MethodType.methodType(boolean.class));
			CLAIMED = grant.findVirtual(Decision.Grant.class, "claimed", MethodType.methodType(boolean.class));
			CLAIM_SLOTS = grant.findVirtual(Decision.Grant.class, "claimSlots", MethodType.methodType(boolean.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private Decisions() {
	}

	/**
	 * Return a copy of an admitted decision that remembers what it took, so that
	 * {@code RateLimiter.release} can give it back; a rejection is returned as it is.
	 * @param decision the store's decision
	 * @param key the key
	 * @param permits the permits taken
	 * @param limits the limits they were taken under
	 * @param member the store's mark of this call, or {@code null} when it keeps none
	 * @return the decision
	 */
	public static Decision granting(Decision decision, String key, long permits, List<Limit> limits, String member) {
		if (!decision.isAllowed()) {
			// A rejection grants nothing: no need to reach into the decision.
			return decision;
		}
		try {
			return (Decision) GRANTING.invokeExact(decision, key, permits, limits, member);
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	/**
	 * Return a copy of a store's answer to a charge that keeps the grant of the call it
	 * settles, and the failure policy of the decision it charged.
	 * @param charged the store's answer
	 * @param decision the decision charged
	 * @return the decision after the charge
	 */
	public static Decision charged(Decision charged, Decision decision) {
		try {
			Decision kept = (Decision) KEEPING.invokeExact(charged, decision.grant());
			return (decision.policy() != null) ? decidedBy(kept, decision.policy()) : kept;
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	/**
	 * Return a copy of a decision marked as taken without the store, by a failure policy;
	 * it carries no grant.
	 * @param decision the decision
	 * @param policy the policy that decided
	 * @return the degraded decision
	 */
	public static Decision decidedBy(Decision decision, FailurePolicy policy) {
		try {
			return (Decision) DECIDED_BY.invokeExact(decision, policy);
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	/**
	 * Return whether a grant was given back.
	 * @param grant the grant
	 * @return whether it was claimed for a refund
	 */
	public static boolean isClaimed(Decision.Grant grant) {
		try {
			return (boolean) CLAIMED.invokeExact(grant);
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	/**
	 * Claim a grant for a refund.
	 * @param grant the grant
	 * @return {@code true} the first time only
	 */
	public static boolean claim(Decision.Grant grant) {
		try {
			return (boolean) CLAIM.invokeExact(grant);
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	/**
	 * Claim a grant's slots under in-flight limits, to give them back.
	 * @param grant the grant
	 * @return {@code true} the first time only, by a refund or by the call's end
	 */
	public static boolean claimSlots(Decision.Grant grant) {
		try {
			return (boolean) CLAIM_SLOTS.invokeExact(grant);
		}
		catch (Throwable ex) {
			throw rethrown(ex);
		}
	}

	private static RuntimeException rethrown(Throwable ex) {
		if (ex instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (ex instanceof Error error) {
			throw error;
		}
		throw new IllegalStateException(ex);
	}

}
