package dev.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a call may go on under one or more {@link Limit limits}, and records it
 * when it may.
 * <p>
 * Implementations are thread-safe. Several limits on one call are checked and recorded
 * atomically: if one rejects, no permit is consumed under any of them. Every call has a
 * blocking form and a non-blocking one ({@link #acquireAsync}), which decide alike.
 *
 * <pre class="code">
 * Decision decision = rateLimiter.acquire("user:42", Limit.of(2, Duration.ofSeconds(30)));
 * if (!decision.isAllowed()) {
 *     // tell the caller to come back after decision.retryAfter()
 * }
 * </pre>
 */
public interface RateLimiter {

	/**
	 * Ask for {@code permits} permits under every limit for {@code key}.
	 * @param key what is limited, such as a user and a route; not blank
	 * @param permits the cost of the call, 1 to the smallest threshold
	 * @param limits the limits to check together, at least one
	 * @return the decision
	 * @throws IllegalArgumentException if an argument is invalid; nothing is recorded
	 */
	Decision acquire(String key, long permits, List<Limit> limits);

	/**
	 * Ask for {@code permits} permits under every limit for {@code key} without blocking
	 * the calling thread: the decision completes the future when the store answers.
	 * <p>
	 * The default decides with {@link #acquire(String, long, List)} on the calling
	 * thread, which suits limiters that never wait; a limiter that waits on a store
	 * overrides it.
	 * @param key what is limited, such as a user and a route; not blank
	 * @param permits the cost of the call, 1 to the smallest threshold
	 * @param limits the limits to check together, at least one
	 * @return the decision to come; it completes exceptionally when the store fails
	 * @throws IllegalArgumentException if an argument is invalid; nothing is recorded
	 */
	default CompletableFuture<Decision> acquireAsync(String key, long permits, List<Limit> limits) {
		Decision decision;
		try {
			decision = acquire(key, permits, limits);
		}
		catch (IllegalArgumentException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return CompletableFuture.completedFuture(decision);
	}

	/**
	 * Give back the permits an admitted decision took, as if the call had not been made:
	 * for calls that should not count, such as those that failed on the server's side.
	 * Giving back twice, or giving back a rejected or degraded decision, does nothing.
	 * <p>
	 * The default gives nothing back, for limiters that keep no grants.
	 * @param decision a decision of this limiter
	 * @return whether permits were given back
	 */
	default boolean release(Decision decision) {
		return false;
	}

	/**
	 * Tell the limiter that the call of an admitted decision has ended, however it ended:
	 * the slots it holds under {@link Algorithm#IN_FLIGHT in-flight} limits are given
	 * back, once, and their leases no longer renewed; permits under other limits keep
	 * counting. Every call admitted under an in-flight limit must end so, or its slots
	 * stay held while this limiter runs.
	 * <p>
	 * The default gives nothing back, for limiters that keep no grants.
	 * @param decision a decision of this limiter
	 * @return whether slots were given back (not for a rejection, a call already ended or
	 * refunded, or one without in-flight limits)
	 */
	default boolean finish(Decision decision) {
		return false;
	}

	/**
	 * Record {@code permits} more under the limits of an admitted decision, once the
	 * call's real cost is known (reserve, then settle): all limits or none, and never a
	 * rejection, even past the threshold; later calls are then rejected until the windows
	 * have room again. A negative number gives back up to what the decision took. Not
	 * supported under {@link Algorithm#SLIDING_LOG}, which keeps one entry per permit.
	 * <p>
	 * The default records nothing, for limiters that keep no grants.
	 * @param decision an admitted decision of this limiter
	 * @param permits the permits to add, or to give back when negative
	 * @return the decision after the charge (its remaining permits and reset); the
	 * decision itself when there is nothing to charge (a rejection, a decision without a
	 * grant, 0 permits)
	 * @throws IllegalArgumentException if a limit of the decision is a sliding log
	 */
	default Decision charge(Decision decision, long permits) {
		return decision;
	}

	/**
	 * Record {@code permits} more under the limits of an admitted decision without
	 * blocking the calling thread; see {@link #charge(Decision, long)}.
	 * <p>
	 * The default charges with {@link #charge(Decision, long)} on the calling thread.
	 * @param decision an admitted decision of this limiter
	 * @param permits the permits to add, or to give back when negative
	 * @return the decision after the charge, to come
	 * @throws IllegalArgumentException if a limit of the decision is a sliding log
	 */
	default CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		Decision charged;
		try {
			charged = charge(decision, permits);
		}
		catch (IllegalArgumentException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return CompletableFuture.completedFuture(charged);
	}

	/**
	 * Count an admitted decision's permits from now on rather than from when it was
	 * decided, as if the call had been made now: for calls whose real moment is later
	 * than their turn, such as a request that a third party receives after its connection
	 * opened. The token bucket, which keeps no times, is unchanged.
	 * <p>
	 * The default moves nothing, for limiters that keep no grants.
	 * @param decision an admitted decision of this limiter
	 * @return whether its permits were moved (not for a rejection, a refunded decision or
	 * one without a grant)
	 */
	default boolean moveToNow(Decision decision) {
		return false;
	}

	/**
	 * Read how much of each limit a key has used, without recording anything.
	 * @param key the key; not blank
	 * @param limits the limits, at least one
	 * @return the usage of each limit, in the order given
	 * @throws IllegalArgumentException if an argument is invalid
	 * @throws UnsupportedOperationException if this limiter cannot read its state
	 */
	default List<Usage> usage(String key, List<Limit> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " does not report usage");
	}

	/**
	 * Forget everything counted for a key under the given limits, as if it had never
	 * called: an operator's reset of one caller's quota.
	 * @param key the key; not blank
	 * @param limits the limits, at least one
	 * @throws IllegalArgumentException if an argument is invalid
	 * @throws UnsupportedOperationException if this limiter cannot reset its state
	 */
	default void reset(String key, List<Limit> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot reset a key");
	}

	/**
	 * Ask for one permit under every limit for {@code key}.
	 * @param key what is limited; not blank
	 * @param limits the limits to check together, at least one
	 * @return the decision
	 */
	default Decision acquire(String key, Limit... limits) {
		return acquire(key, 1, List.of(limits));
	}

	/**
	 * Ask for {@code permits} permits under every limit for {@code key}, and throw when
	 * the call is rejected.
	 * @param key what is limited; not blank
	 * @param permits the cost of the call
	 * @param limits the limits to check together, at least one
	 * @return the decision for an admitted call
	 * @throws RateLimitExceededException if the call is rejected
	 * @throws RateLimitUnavailableException if the store could not answer and a
	 * fail-closed limit rejected the call
	 */
	default Decision acquireOrThrow(String key, long permits, List<Limit> limits) {
		Decision decision = acquire(key, permits, limits);
		if (!decision.isAllowed()) {
			throw (decision.policy() == FailurePolicy.FAIL_CLOSED) ? RateLimitUnavailableException.of(key, decision)
					: RateLimitExceededException.of(key, decision);
		}
		return decision;
	}

}
