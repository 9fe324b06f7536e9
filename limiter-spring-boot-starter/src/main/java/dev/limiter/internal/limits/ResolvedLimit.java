package dev.limiter.internal.limits;

import java.util.Map;

import dev.limiter.Limit;

/**
 * One limit as it is enforced: its numbers and settings, whether it only watches, and the
 * limits of its plans.
 *
 * @param limit the limit
 * @param shadow whether it only watches
 * @param plans the limit under each of its plans' numbers, by plan name
 * @param local the limit as this instance decides it, for an adaptive limit; otherwise
 * {@code null}
 */
public record ResolvedLimit(Limit limit, boolean shadow, Map<String, Limit> plans, LocalLimit local) {

	public ResolvedLimit {
		plans = Map.copyOf(plans);
	}

	/**
	 * One stored limit as it is enforced.
	 */
	public ResolvedLimit(Limit limit, boolean shadow, Map<String, Limit> plans) {
		this(limit, shadow, plans, null);
	}

	/**
	 * Return the limit under a plan's numbers.
	 * @param plan the plan's name
	 * @return the plan's limit, or the limit itself when it has no such plan
	 */
	public Limit forPlan(String plan) {
		return this.plans.getOrDefault(plan, this.limit);
	}

}
