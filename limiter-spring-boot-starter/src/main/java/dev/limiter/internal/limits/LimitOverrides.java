package dev.limiter.internal.limits;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.Limit;

/**
 * The numbers an operator set at run time in place of the configured ones: per named
 * limit (and per plan of it), and per caller of a named limit. Held in each instance and
 * replaced whole, so that a call reads them with one volatile read and, when there are
 * none, does nothing else.
 */
public final class LimitOverrides {

	private volatile State state = new State(Map.of(), Map.of(), Map.of());

	private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

	/**
	 * Return whether no override is set, the usual case.
	 * @return whether there is none
	 */
	public boolean isEmpty() {
		State state = this.state;
		return state.named.isEmpty() && state.callers.isEmpty() && state.configured.isEmpty();
	}

	/**
	 * Return the numbers of the configuration as refreshed at run time, where they differ
	 * from those the application started with.
	 * @return the refreshed numbers by limit name
	 */
	public Map<String, NamedOverride> configured() {
		return this.state.configured;
	}

	/**
	 * Replace the refreshed numbers of the configuration; an operator's overrides stay
	 * and still win.
	 * @param configured the numbers that differ from those the application started with
	 */
	public synchronized void replaceConfigured(Map<String, NamedOverride> configured) {
		State state = this.state;
		this.state = new State(state.named, state.callers, Map.copyOf(configured));
		this.listeners.forEach(Runnable::run);
	}

	/**
	 * Return the overrides of named limits.
	 * @return the overrides by limit name
	 */
	public Map<String, NamedOverride> named() {
		return this.state.named;
	}

	/**
	 * Return the overrides of single callers.
	 * @return the numbers by limit name, then by the caller's full key
	 */
	public Map<String, Map<String, Numbers>> callers() {
		return this.state.callers;
	}

	/**
	 * Replace every override at once.
	 * @param named the overrides of named limits
	 * @param callers the overrides of single callers, by limit name then full key
	 */
	public synchronized void replace(Map<String, NamedOverride> named, Map<String, Map<String, Numbers>> callers) {
		Map<String, Map<String, Numbers>> copied = new java.util.LinkedHashMap<>();
		callers.forEach((name, byKey) -> {
			if (!byKey.isEmpty()) {
				copied.put(name, Map.copyOf(byKey));
			}
		});
		this.state = new State(Map.copyOf(named), Map.copyOf(copied), this.state.configured);
		this.listeners.forEach(Runnable::run);
	}

	/**
	 * Run an action after every change, such as dropping what was derived from the former
	 * overrides.
	 * @param listener the action
	 */
	public void onChange(Runnable listener) {
		this.listeners.add(listener);
	}

	/**
	 * Return a call's limits under the refreshed configuration and the overrides, in that
	 * order, each layer giving its plan's numbers or else its limit's: a caller's own
	 * numbers last, so that they win.
	 * @param limits the limits of the call (its plan's, when a configured plan applies)
	 * @param plan the call's plan, or {@code null}
	 * @param configuredPlan whether a plan of the configuration gave the limits
	 * @param key the call's full key
	 * @return the limits, the same list when nothing applies
	 */
	public List<Limit> apply(List<Limit> limits, String plan, boolean configuredPlan, String key) {
		State state = this.state;
		List<Limit> applied = null;
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			Limit changed = state.apply(limit, plan, configuredPlan, key);
			if (changed != limit && applied == null) {
				applied = new ArrayList<>(limits.subList(0, i));
			}
			if (applied != null) {
				applied.add(changed);
			}
		}
		return (applied != null) ? List.copyOf(applied) : limits;
	}

	/**
	 * Threshold and period that replace a limit's; either may be {@code null}, which
	 * keeps the limit's own.
	 *
	 * @param threshold the threshold, or {@code null}
	 * @param period the period, or {@code null}
	 */
	public record Numbers(Long threshold, Duration period) {

		/** No numbers at all. */
		public static final Numbers NONE = new Numbers(null, null);

		/**
		 * Return whether neither number is given.
		 * @return whether this changes nothing
		 */
		public boolean isEmpty() {
			return this.threshold == null && this.period == null;
		}

		/**
		 * Return a limit with these numbers.
		 * @param limit the limit
		 * @return the limit with the numbers given, itself when they change nothing
		 * @throws IllegalArgumentException if a number is out of the limit's range
		 */
		public Limit applyTo(Limit limit) {
			Limit applied = limit;
			if (this.threshold != null && this.threshold != limit.threshold()) {
				applied = applied.withThreshold(this.threshold);
			}
			if (this.period != null && !this.period.equals(limit.period())) {
				applied = applied.withPeriod(this.period);
			}
			return applied;
		}

	}

	/**
	 * The override of a named limit: its own numbers and those of its plans.
	 *
	 * @param numbers the numbers of calls under no configured plan
	 * @param plans the numbers of calls under a plan, by plan name
	 */
	public record NamedOverride(Numbers numbers, Map<String, Numbers> plans) {

		public NamedOverride {
			numbers = (numbers != null) ? numbers : Numbers.NONE;
			plans = (plans != null) ? Map.copyOf(plans) : Map.of();
		}

		/**
		 * Return whether the override changes nothing.
		 * @return whether it is empty
		 */
		public boolean isEmpty() {
			return this.numbers.isEmpty() && this.plans.values().stream().allMatch(Numbers::isEmpty);
		}

	}

	private record State(Map<String, NamedOverride> named, Map<String, Map<String, Numbers>> callers,
			Map<String, NamedOverride> configured) {

		Limit apply(Limit limit, String plan, boolean configuredPlan, String key) {
			String name = limit.name();
			Limit applied = layer(this.configured.get(name), limit, plan, configuredPlan);
			applied = layer(this.named.get(name), applied, plan, configuredPlan);
			Map<String, Numbers> byKey = this.callers.get(name);
			Numbers own = (byKey != null) ? byKey.get(key) : null;
			return (own != null) ? own.applyTo(applied) : applied;
		}

		private static Limit layer(NamedOverride override, Limit limit, String plan, boolean configuredPlan) {
			if (override == null) {
				return limit;
			}
			Numbers planned = (plan != null) ? override.plans.get(plan) : null;
			if (planned != null) {
				return planned.applyTo(limit);
			}
			// A configured plan's numbers replace the limit's own: an override of those
			// does not reach a plan's calls.
			return configuredPlan ? limit : override.numbers.applyTo(limit);
		}

	}

}
