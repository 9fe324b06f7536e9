package dev.limiter.internal.limits;

import java.time.Duration;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;

/**
 * What one source says of one limit: an annotation, a gateway route, a named limit of the
 * configuration. A {@code null} attribute is one the source does not give.
 *
 * @param name the limit's name, empty for an unnamed limit
 * @param threshold the most permits in a window
 * @param period the window
 * @param algorithm the algorithm
 * @param slices the slices of a sliding-buckets window
 * @param failurePolicy what decides while the store cannot answer
 * @param localThreshold the most permits each instance admits on its own meanwhile, 0 for
 * the threshold
 * @param shadow whether the limit only watches
 * @param plans the plans' numbers by plan name (named limits only)
 * @param calendar the calendar whose windows count the limit, such as {@code day}
 * @param zone the time zone of the calendar, such as {@code Europe/Berlin}
 * @param penalty how long a caller the limit rejects stays refused
 * @param adaptive how an adaptive limit learns (named limits only), {@code null} for the
 * defaults
 */
public record LimitAttributes(String name, Long threshold, Duration period, Algorithm algorithm, Integer slices,
		FailurePolicy failurePolicy, Long localThreshold, Boolean shadow, Map<String, Plan> plans, String calendar,
		String zone, Duration penalty, Adaptive adaptive) {

	/** No attribute at all. */
	public static final LimitAttributes NONE = new LimitAttributes("", null, null, null, null, null, null, null,
			Map.of());

	public LimitAttributes {
		name = (name != null) ? name.trim() : "";
		plans = (plans != null) ? Map.copyOf(plans) : Map.of();
		calendar = (calendar != null && !calendar.isBlank()) ? calendar.trim() : null;
		zone = (zone != null && !zone.isBlank()) ? zone.trim() : null;
	}

	/**
	 * What a source says of a limit that is not adaptive.
	 */
	public LimitAttributes(String name, Long threshold, Duration period, Algorithm algorithm, Integer slices,
			FailurePolicy failurePolicy, Long localThreshold, Boolean shadow, Map<String, Plan> plans, String calendar,
			String zone, Duration penalty) {
		this(name, threshold, period, algorithm, slices, failurePolicy, localThreshold, shadow, plans, calendar, zone,
				penalty, null);
	}

	/**
	 * What a source says of a limit without a penalty.
	 */
	public LimitAttributes(String name, Long threshold, Duration period, Algorithm algorithm, Integer slices,
			FailurePolicy failurePolicy, Long localThreshold, Boolean shadow, Map<String, Plan> plans, String calendar,
			String zone) {
		this(name, threshold, period, algorithm, slices, failurePolicy, localThreshold, shadow, plans, calendar, zone,
				null);
	}

	/**
	 * What a source says of a limit not counted by a calendar.
	 */
	public LimitAttributes(String name, Long threshold, Duration period, Algorithm algorithm, Integer slices,
			FailurePolicy failurePolicy, Long localThreshold, Boolean shadow, Map<String, Plan> plans) {
		this(name, threshold, period, algorithm, slices, failurePolicy, localThreshold, shadow, plans, null, null);
	}

	/**
	 * The numbers of one plan of a named limit.
	 *
	 * @param threshold the plan's threshold
	 * @param period the plan's window, {@code null} for the limit's own
	 * @param share the part of an adaptive limit the plan's calls may use, {@code null}
	 * for all of it
	 */
	public record Plan(Long threshold, Duration period, Double share) {

		/**
		 * The numbers of a plan of a limit that is not adaptive.
		 */
		public Plan(Long threshold, Duration period) {
			this(threshold, period, null);
		}

	}

	/**
	 * How an adaptive limit learns.
	 *
	 * @param strategy {@code gradient}, {@code vegas} or {@code aimd}
	 * @param initial the limit before anything is learned, {@code null} for the default
	 * @param min the lowest it learns down to, {@code null} for the default
	 */
	public record Adaptive(String strategy, Integer initial, Integer min) {

	}

}
