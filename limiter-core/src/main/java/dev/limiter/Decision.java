package dev.limiter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answer of a {@link RateLimiter}: whether the call may go on, and what a client
 * needs to know to behave well.
 */
public final class Decision {

	private final boolean allowed;

	private final Limit limit;

	private final long remaining;

	private final Duration retryAfter;

	private final Duration resetAfter;

	private final long decidedAtMicros;

	private final FailurePolicy policy;

	private final Grant grant;

	private Decision(boolean allowed, Limit limit, long remaining, Duration retryAfter, Duration resetAfter,
			long decidedAtMicros) {
		this(allowed, limit, remaining, retryAfter, resetAfter, decidedAtMicros, null, null);
	}

	private Decision(boolean allowed, Limit limit, long remaining, Duration retryAfter, Duration resetAfter,
			long decidedAtMicros, FailurePolicy policy, Grant grant) {
		this.allowed = allowed;
		this.grant = grant;
		this.policy = policy;
		this.decidedAtMicros = decidedAtMicros;
		this.limit = limit;
		this.remaining = remaining;
		this.retryAfter = retryAfter;
		this.resetAfter = resetAfter;
	}

	/**
	 * Create the decision for an admitted call.
	 * @param limit the limit with the fewest permits left
	 * @param remaining the permits left under that limit
	 * @param resetAfter the time until that limit's window holds no permits
	 * @param decidedAtMicros the store's clock when it decided, in microseconds since the
	 * epoch
	 * @return the decision
	 */
	public static Decision allowed(Limit limit, long remaining, Duration resetAfter, long decidedAtMicros) {
		return new Decision(true, limit, remaining, Duration.ZERO, resetAfter, decidedAtMicros);
	}

	/**
	 * Create the decision for a call admitted without a store's count, as the
	 * {@link FailurePolicy#FAIL_OPEN} policy admits it: no known quota.
	 * @param limit the first limit of the call
	 * @param decidedAtMicros the clock when it was admitted, in microseconds since the
	 * epoch
	 * @return the degraded decision
	 */
	public static Decision failedOpen(Limit limit, long decidedAtMicros) {
		return allowed(limit, -1, Duration.ZERO, decidedAtMicros).decidedBy(FailurePolicy.FAIL_OPEN);
	}

	/**
	 * Create the decision for a rejected call.
	 * @param limit the limit that rejected the call (the one that frees up last)
	 * @param remaining the permits left under that limit
	 * @param retryAfter the time until the same call would be admitted, if nobody else
	 * calls meanwhile
	 * @param resetAfter the time until that limit's window holds no permits
	 * @param decidedAtMicros the store's clock when it decided, in microseconds since the
	 * epoch
	 * @return the decision
	 */
	public static Decision rejected(Limit limit, long remaining, Duration retryAfter, Duration resetAfter,
			long decidedAtMicros) {
		return new Decision(false, limit, remaining, retryAfter, resetAfter, decidedAtMicros);
	}

	/**
	 * Return whether the call was admitted and its permits recorded.
	 * @return whether the call may go on
	 */
	public boolean isAllowed() {
		return this.allowed;
	}

	/**
	 * Return the limit that decided: for a rejection the limit that frees up last, for an
	 * admission the limit with the fewest permits left.
	 * @return the deciding limit
	 */
	public Limit limit() {
		return this.limit;
	}

	/**
	 * Return the permits left under the deciding limit after this call.
	 * @return the remaining permits; {@code -1} when unknown (a degraded admission)
	 */
	public long remaining() {
		return this.remaining;
	}

	/**
	 * Return the time until enough permits leave the window for this call to be admitted;
	 * zero when it was admitted.
	 * @return the exact time to wait
	 */
	public Duration retryAfter() {
		return this.retryAfter;
	}

	/**
	 * Return the time until the deciding limit's window is empty and its full threshold
	 * is available again.
	 * @return the time until the window resets
	 */
	public Duration resetAfter() {
		return this.resetAfter;
	}

	// Protocol for Limiter's stores and decorators, reached through
	// dev.limiter.internal.Decisions.
	private Decision decidedBy(FailurePolicy policy) {
		if (policy == null) {
			throw new IllegalArgumentException("policy must not be null");
		}
		// a LOCAL decision keeps the in-memory grant, for a charge under the same policy
		return new Decision(this.allowed, this.limit, this.remaining, this.retryAfter, this.resetAfter,
				this.decidedAtMicros, policy, this.grant);
	}

	// The decision after a charge keeps the grant of the call it settles.
	private Decision keeping(Grant grant) {
		return new Decision(this.allowed, this.limit, this.remaining, this.retryAfter, this.resetAfter,
				this.decidedAtMicros, this.policy, grant);
	}

	// Admitted decisions only: Decisions.granting answers a rejection itself.
	private Decision granting(String key, long permits, List<Limit> limits, String member) {
		return new Decision(true, this.limit, this.remaining, this.retryAfter, this.resetAfter, this.decidedAtMicros,
				this.policy, new Grant(key, permits, limits, member, this.decidedAtMicros));
	}

	/**
	 * Return what an admitted decision took from the store, for a refund.
	 * @return the grant, or {@code null} for a rejection, a decision admitted without a
	 * count ({@link FailurePolicy#FAIL_OPEN}) or a decision whose store keeps no grants
	 */
	public Grant grant() {
		return this.grant;
	}

	/**
	 * Return whether the store could not answer and a {@link FailurePolicy} decided
	 * instead. A degraded admission under {@link FailurePolicy#FAIL_OPEN} does not know
	 * the remaining permits and reports {@code -1}.
	 * @return whether the decision is degraded
	 */
	public boolean isDegraded() {
		return this.policy != null;
	}

	/**
	 * Return the failure policy that decided while the store could not answer.
	 * @return the policy, or {@code null} when the store decided
	 */
	public FailurePolicy policy() {
		return this.policy;
	}

	/**
	 * Return the store's clock when it decided (the Redis server's by default), in
	 * microseconds since the epoch: the time at which an admitted call counts.
	 * @return the time of the decision
	 */
	public long decidedAtMicros() {
		return this.decidedAtMicros;
	}

	/**
	 * Return {@link #retryAfter()} as whole seconds for {@code Retry-After}: rounded up
	 * and at least 1 for a rejection, so a client that waits that long is never early; 0
	 * for an admission.
	 * @return the seconds to wait
	 */
	public long retryAfterSeconds() {
		return this.allowed ? 0 : Math.max(1, ceilSeconds(this.retryAfter));
	}

	/**
	 * Return {@link #resetAfter()} as whole seconds, rounded up.
	 * @return the seconds until the window is empty
	 */
	public long resetAfterSeconds() {
		return ceilSeconds(this.resetAfter);
	}

	private static long ceilSeconds(Duration duration) {
		long seconds = duration.getSeconds();
		return (duration.getNano() > 0) ? seconds + 1 : seconds;
	}

	/**
	 * The permits an admitted call took, which a refund gives back once.
	 */
	public static final class Grant {

		private final String key;

		private final long permits;

		private final List<Limit> limits;

		private final String member;

		private final long atMicros;

		private final AtomicBoolean released = new AtomicBoolean();

		private final AtomicBoolean slotsReturned = new AtomicBoolean();

		private Grant(String key, long permits, List<Limit> limits, String member, long atMicros) {
			this.key = key;
			this.permits = permits;
			this.limits = limits;
			this.member = member;
			this.atMicros = atMicros;
		}

		/**
		 * Return the key the permits were taken under.
		 * @return the key
		 */
		public String key() {
			return this.key;
		}

		/**
		 * Return the permits taken.
		 * @return the permits
		 */
		public long permits() {
			return this.permits;
		}

		/**
		 * Return the limits the permits were taken under.
		 * @return the limits
		 */
		public List<Limit> limits() {
			return this.limits;
		}

		/**
		 * Return the store's mark of the call, such as the members of a log.
		 * @return the mark, or {@code null}
		 */
		public String member() {
			return this.member;
		}

		/**
		 * Return the store's time of the call, in microseconds since the epoch.
		 * @return the time the permits were taken
		 */
		public long atMicros() {
			return this.atMicros;
		}

		// Reached through dev.limiter.internal.Decisions: a refund gives a grant back
		// once.
		private boolean claim() {
			return this.released.compareAndSet(false, true);
		}

		private boolean claimed() {
			return this.released.get();
		}

		// The slots of in-flight limits are given back once, by a refund or when the
		// call ends, whichever comes first.
		private boolean claimSlots() {
			return this.slotsReturned.compareAndSet(false, true);
		}

	}

	@Override
	public String toString() {
		return ((this.policy != null) ? "degraded (" + this.policy + "), " : "")
				+ (this.allowed ? "allowed" : "rejected") + " by " + this.limit + ", remaining " + this.remaining
				+ ", retry after " + this.retryAfter + ", reset after " + this.resetAfter;
	}

}
