package dev.limiter.internal.limits;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.adaptive.AdaptiveLimit;

/**
 * A limit this instance decides alone, before the store is asked: one adaptive limit of
 * one name, whose calls in flight it learns from their latency and failures, shared by
 * every operation that names it, with a {@link Gate} per plan (a plan's {@code share}
 * caps its calls at a part of the learned number).
 */
public final class LocalLimit {

	/**
	 * The wait a refusal names: the learned number moves within a window of calls, well
	 * under a second, and a call in flight may end at any time.
	 */
	public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	private final Limit limit;

	private final AdaptiveLimit learned;

	private final Gate whole;

	private final Map<String, Gate> plans = new LinkedHashMap<>();

	LocalLimit(Limit limit, AdaptiveLimit learned, Map<String, Double> shares) {
		this.limit = limit;
		this.learned = learned;
		this.whole = new Gate(this, null);
		shares.forEach((plan, share) -> this.plans.put(plan,
				(share != null) ? new Gate(this, new AdaptiveLimit.Share(share)) : this.whole));
	}

	/**
	 * Return the limit as configured, whose threshold is the most it learns up to.
	 * @return the limit
	 */
	public Limit limit() {
		return this.limit;
	}

	/**
	 * Return the learned limit.
	 * @return the limit that learns
	 */
	public AdaptiveLimit learned() {
		return this.learned;
	}

	/**
	 * Return the gate of a plan's calls.
	 * @param plan the plan, or {@code null} for calls without one
	 * @return the gate, the whole limit's for a plan without a share
	 */
	public Gate gate(String plan) {
		return (plan != null) ? this.plans.getOrDefault(plan, this.whole) : this.whole;
	}

	/**
	 * Return the gate of an operation's calls under a plan: that of its one adaptive
	 * limit, if it has one.
	 * @param resolved the operation's limits
	 * @param plan the plan, or {@code null}
	 * @return the gate, or {@code null} when no limit is adaptive
	 * @throws InvalidLimitException if more than one limit is adaptive
	 */
	public static Gate gate(List<ResolvedLimit> resolved, String plan) {
		Gate gate = null;
		for (ResolvedLimit limit : resolved) {
			if (limit.local() == null) {
				continue;
			}
			if (gate != null) {
				throw new InvalidLimitException(
						"two adaptive limits, " + gate.limit() + " and " + limit.limit() + ", apply to one call",
						"Give a call at most one adaptive limit: each learns the capacity of what the call uses.");
			}
			gate = limit.local().gate(plan);
		}
		return gate;
	}

	/**
	 * The door of one class of calls (a plan's, or every call's) into an adaptive limit.
	 *
	 * @param local the limit
	 * @param share the class's part of the learned number, {@code null} for all of it
	 */
	public record Gate(LocalLimit local, AdaptiveLimit.Share share) {

		/**
		 * Admit a call if the learned limit, and the class's share of it, has room.
		 * @return the admitted call, to end once, or {@code null} when it is refused
		 */
		public AdaptiveLimit.Permit tryAcquire() {
			return this.local.learned.tryAcquire(this.share);
		}

		/**
		 * Return the configured limit.
		 * @return the limit
		 */
		public Limit limit() {
			return this.local.limit;
		}

		/**
		 * Return the refusal of a call the gate had no room for: the learned number as
		 * its threshold, nothing remaining, a short wait.
		 * @param decidedAtMicros when, on the application's clock
		 * @return the refusal
		 */
		public Decision refusal(long decidedAtMicros) {
			Limit learned = this.local.limit.withThreshold(Math.max(1, this.local.learned.limit()));
			return Decision.rejected(learned, 0, RETRY_AFTER, RETRY_AFTER, decidedAtMicros);
		}

		/**
		 * Return the admission of a call the gate let in, for the headers of a call no
		 * stored limit decides: the learned number and the room left under it.
		 * @param decidedAtMicros when, on the application's clock
		 * @return the admission
		 */
		public Decision admission(long decidedAtMicros) {
			int learned = Math.max(1, this.local.learned.limit());
			long left = Math.max(0, learned - this.local.learned.inFlight());
			return Decision.allowed(this.local.limit.withThreshold(learned), left, Duration.ZERO, decidedAtMicros);
		}

	}

}
