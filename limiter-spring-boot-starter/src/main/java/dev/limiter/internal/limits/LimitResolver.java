package dev.limiter.internal.limits;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.adaptive.AdaptiveLimit;
import dev.limiter.internal.adaptive.AdaptiveStrategy;
import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.key.RateLimitKeys;

/**
 * Turns what a source declares of a limit (an annotation, a gateway route) into the limit
 * that is enforced: the named limit of the configuration completes or overrides the
 * declaration, the defaults fill the rest, plans get their own numbers, and every rule is
 * checked here, once, for every source. Sources differ only in how an error names the
 * attribute to fix ({@link Spelling}).
 */
public final class LimitResolver {

	private final Map<String, LimitAttributes> named;

	private final Algorithm defaultAlgorithm;

	private final boolean defaultShadow;

	private final LimitOverrides overrides = new LimitOverrides();

	/** The calls in flight an adaptive limit admits before it has learned anything. */
	static final int DEFAULT_INITIAL = 20;

	private final Map<String, LocalLimit> local = new java.util.concurrent.ConcurrentHashMap<>();

	private final java.util.function.LongSupplier nanoClock = System::nanoTime;

	/**
	 * Create a resolver.
	 * @param named the named limits of the configuration ({@code limiter.limits})
	 * @param defaultAlgorithm the algorithm of limits that choose none
	 * ({@code limiter.algorithm})
	 * @param defaultShadow whether a limit only watches unless its configuration says
	 * otherwise ({@code limiter.shadow})
	 */
	public LimitResolver(Map<String, LimitAttributes> named, Algorithm defaultAlgorithm, boolean defaultShadow) {
		if (named == null || defaultAlgorithm == null) {
			throw new IllegalArgumentException("named and defaultAlgorithm must not be null");
		}
		this.named = Map.copyOf(named);
		this.defaultAlgorithm = defaultAlgorithm;
		this.defaultShadow = defaultShadow;
		// learned from the start, whether or not a call names them yet, so that the
		// gauges and the endpoint show every one
		named.forEach((name, attributes) -> {
			if (attributes.algorithm() == Algorithm.ADAPTIVE) {
				adaptive(name, attributes);
			}
		});
	}

	/**
	 * Return the numbers set at run time over the resolved limits, which every call
	 * applies after its plan.
	 * @return the overrides
	 */
	public LimitOverrides overrides() {
		return this.overrides;
	}

	/**
	 * Return the named limits of the configuration.
	 * @return the attributes by name
	 */
	public Map<String, LimitAttributes> named() {
		return this.named;
	}

	/**
	 * Resolve a declared limit, completed by the named limit of its name, if any.
	 * @param declared what the source says
	 * @param spelling how the source names its attributes
	 * @return the limit
	 * @throws InvalidLimitException if the limit cannot be enforced
	 */
	public ResolvedLimit resolve(LimitAttributes declared, Spelling spelling) {
		String name = declared.name();
		LimitAttributes configured = name.isEmpty() ? LimitAttributes.NONE
				: this.named.getOrDefault(name, LimitAttributes.NONE);
		if (configured.threshold() == null && declared.threshold() == null && !name.isEmpty()) {
			throw spelling.undefined(name);
		}
		return resolve(declared, configured, spelling);
	}

	/**
	 * Resolve a limit that a source declares whole, named for display only, such as a
	 * route's own limit: no named limit completes it.
	 * @param declared what the source says
	 * @param spelling how the source names its attributes
	 * @return the limit
	 * @throws InvalidLimitException if the limit cannot be enforced
	 */
	public ResolvedLimit resolveOwn(LimitAttributes declared, Spelling spelling) {
		return resolve(declared, LimitAttributes.NONE, spelling);
	}

	private ResolvedLimit resolve(LimitAttributes declared, LimitAttributes configured, Spelling spelling) {
		String name = declared.name();
		if (declared.algorithm() == Algorithm.ADAPTIVE) {
			throw new InvalidLimitException(
					"the adaptive algorithm is given to limit '" + name + "' outside the configuration",
					"An adaptive limit is learned per instance and configured by name: set limiter.limits."
							+ (name.isEmpty() ? "<name>" : name) + ".algorithm to adaptive, and name the limit "
							+ "where it applies.");
		}
		if (configured.algorithm() == Algorithm.ADAPTIVE) {
			return adaptive(name, configured);
		}
		Long threshold = first(configured.threshold(), declared.threshold());
		String calendar = first(configured.calendar(), declared.calendar());
		// a calendar's windows have no period: any valid one passes until the calendar
		// replaces it
		Duration period = first(configured.period(),
				first(declared.period(), (calendar != null) ? Limit.MIN_PERIOD : null));
		if (period == null) {
			throw new InvalidLimitException("limit '" + name + "' has no period",
					"Define limiter.limits." + name + ".period, such as 1m.");
		}
		Limit limit;
		try {
			limit = name.isEmpty() ? Limit.of(first(threshold, 0L), period)
					: Limit.of(name, first(threshold, 0L), period);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLimitException(ex.getMessage(),
					ex.getMessage().startsWith("threshold") ? spelling.thresholdFix() : spelling.periodFix());
		}
		Algorithm chosen = first(configured.algorithm(), declared.algorithm());
		Algorithm algorithm = (calendar != null) ? Algorithm.CALENDAR : first(chosen, this.defaultAlgorithm);
		if (calendar != null && chosen != null && chosen != Algorithm.CALENDAR) {
			String given = (configured.calendar() != null) ? "limiter.limits." + name + ".calendar"
					: spelling.attribute("calendar");
			throw new InvalidLimitException(
					"calendar '" + calendar + "' is given to a " + chosen.text() + " limit '" + name + "'"
							+ ((configured.calendar() != null) ? " (limiter.limits." + name + ".calendar)" : ""),
					"A calendar counts its own windows: remove the algorithm"
							+ ((configured.algorithm() != null) ? " (limiter.limits." + name + ".algorithm)" : "")
							+ ", or remove " + given + ".");
		}
		int slices = first(configured.slices(), first(declared.slices(), Limit.DEFAULT_SLICES));
		checkSlices(algorithm, slices, limit, spelling);
		try {
			limit = limit.withAlgorithm(algorithm).withSlices(slices);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLimitException(ex.getMessage(),
					"Set " + spelling.slices() + " (or limiter.limits.<name>.slices) between 1 and " + Limit.MAX_SLICES
							+ "; 60 makes one-minute slices of a one-hour window.");
		}
		String zone = first(configured.zone(), declared.zone());
		if (calendar != null) {
			limit = limit.withCalendar(calendar(calendar, spelling), zone(zone, spelling));
		}
		else if (zone != null) {
			boolean fromYaml = configured.zone() != null;
			throw new InvalidLimitException(
					"zone '" + zone + "' is given to limit '" + name + "' without a calendar"
							+ (fromYaml ? " (limiter.limits." + name + ".zone)" : ""),
					"A zone draws a calendar's boundaries: set "
							+ (fromYaml ? "limiter.limits." + name + ".calendar" : spelling.attribute("calendar"))
							+ " (minute, hour, day, week or month), or remove "
							+ (fromYaml ? "limiter.limits." + name + ".zone" : spelling.attribute("zone")) + ".");
		}
		try {
			limit = limit.withFailurePolicy(first(configured.failurePolicy(), declared.failurePolicy()))
				.withLocalThreshold(first(configured.localThreshold(), first(declared.localThreshold(), 0L)));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLimitException(ex.getMessage(),
					"Set " + spelling.localThreshold() + " to 0 (the threshold) or to the most calls each instance "
							+ "admits on its own while Redis is unavailable, at most " + Limit.MAX_THRESHOLD + ".");
		}
		Duration penalty = first(configured.penalty(), declared.penalty());
		if (penalty != null) {
			try {
				limit = limit.withPenalty(penalty);
			}
			catch (IllegalArgumentException ex) {
				String given = (configured.penalty() != null) ? "limiter.limits." + name + ".penalty"
						: spelling.attribute("penalty");
				throw new InvalidLimitException(ex.getMessage(),
						(algorithm == Algorithm.IN_FLIGHT) ? "Remove " + given
								+ ": a call in flight that finds every slot taken waits or retries, it is not abuse."
								: "Set " + given + " to how long a rejected caller stays refused, such as 1h, at most "
										+ Limit.MAX_PERIOD.toDays() + " days.");
			}
		}
		boolean shadow = (configured.shadow() != null) ? configured.shadow()
				: this.defaultShadow || Boolean.TRUE.equals(declared.shadow());
		Map<String, Limit> plans = new LinkedHashMap<>();
		for (Map.Entry<String, LimitAttributes.Plan> plan : configured.plans().entrySet()) {
			plans.put(plan.getKey(), planned(limit, plan.getKey(), plan.getValue()));
		}
		return new ResolvedLimit(limit, shadow, plans);
	}

	/**
	 * Resolve an adaptive limit, whose properties were checked at startup: one learning
	 * limit per name on this instance, shared by every operation that names it; its plans
	 * keep its numbers and take a share of what it learns.
	 */
	private ResolvedLimit adaptive(String name, LimitAttributes configured) {
		Limit limit = Limit.of(name, configured.threshold(), LocalLimit.RETRY_AFTER).withAlgorithm(Algorithm.ADAPTIVE);
		Map<String, Limit> plans = new LinkedHashMap<>();
		configured.plans().keySet().forEach((plan) -> plans.put(plan, limit));
		LocalLimit local = this.local.computeIfAbsent(name, (n) -> {
			LimitAttributes.Adaptive settings = (configured.adaptive() != null) ? configured.adaptive()
					: new LimitAttributes.Adaptive(null, null, null);
			int max = (int) Math.min(Integer.MAX_VALUE, limit.threshold());
			int min = first(settings.min(), 1);
			int initial = first(settings.initial(), Math.max(min, Math.min(DEFAULT_INITIAL, max)));
			Map<String, Double> shares = new LinkedHashMap<>();
			configured.plans().forEach((plan, numbers) -> shares.put(plan, numbers.share()));
			return new LocalLimit(limit, new AdaptiveLimit(AdaptiveStrategy.of(first(settings.strategy(), "gradient")),
					initial, min, max, this.nanoClock), shares);
		});
		return new ResolvedLimit(limit, false, plans, local);
	}

	/**
	 * Return the adaptive limits resolved so far, by name.
	 * @return the limits this instance decides alone
	 */
	public Map<String, LocalLimit> local() {
		return java.util.Collections.unmodifiableMap(this.local);
	}

	private static Limit planned(Limit limit, String planName, LimitAttributes.Plan plan) {
		try {
			// a plan's period changes a sliding window, never a calendar's
			Limit planned = limit.withThreshold(first(plan.threshold(), 0L));
			return (plan.period() != null) ? planned.withPeriod(plan.period()) : planned;
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLimitException(ex.getMessage() + " under plan '" + planName + "'",
					"Set limiter.limits." + limit.name() + ".plans." + planName + ".threshold (and .period).");
		}
	}

	/**
	 * Check the rule that slices cut only a sliding-buckets window.
	 * @param algorithm the limit's algorithm
	 * @param slices the slices given, {@link Limit#DEFAULT_SLICES} for none
	 * @param limit the limit, for the message, or {@code null}
	 * @param spelling how the source names its attributes
	 * @throws InvalidLimitException if slices are given to another algorithm
	 */
	public static void checkSlices(Algorithm algorithm, int slices, Limit limit, Spelling spelling) {
		if (slices != Limit.DEFAULT_SLICES && algorithm != Algorithm.SLIDING_BUCKETS) {
			throw new InvalidLimitException(
					"slices = " + slices + " is given to a " + algorithm.text() + " limit"
							+ ((limit != null) ? " " + limit : ""),
					"Slices cut a sliding-buckets window: remove slices, or set " + spelling.bucketsAlgorithm());
		}
	}

	/**
	 * Read a calendar as sources write it.
	 * @param calendar {@code minute}, {@code hour}, {@code day}, {@code week} or
	 * {@code month}
	 * @param spelling how the source names its attributes
	 * @return the unit of the calendar's windows
	 * @throws InvalidLimitException if it is none of those
	 */
	public static ChronoUnit calendar(String calendar, Spelling spelling) {
		return switch (calendar.toLowerCase(Locale.ROOT)) {
			case "minute" -> ChronoUnit.MINUTES;
			case "hour" -> ChronoUnit.HOURS;
			case "day" -> ChronoUnit.DAYS;
			case "week" -> ChronoUnit.WEEKS;
			case "month" -> ChronoUnit.MONTHS;
			default -> throw new InvalidLimitException("calendar '" + calendar + "' is not a calendar",
					"Set " + spelling.attribute("calendar") + " to minute, hour, day, week or month.");
		};
	}

	/**
	 * Read a calendar's time zone as sources write it.
	 * @param zone an IANA zone id, or {@code null} for UTC
	 * @param spelling how the source names its attributes
	 * @return the zone
	 * @throws InvalidLimitException if the zone does not exist
	 */
	public static ZoneId zone(String zone, Spelling spelling) {
		if (zone == null) {
			return ZoneOffset.UTC;
		}
		try {
			return ZoneId.of(zone);
		}
		catch (DateTimeException ex) {
			throw new InvalidLimitException("zone '" + RateLimitKeys.bounded(zone) + "' is not a time zone",
					"Set " + spelling.attribute("zone") + " to an IANA zone id, such as Europe/Berlin, or leave it "
							+ "empty for UTC.");
		}
	}

	/**
	 * Check that limits can be taken together by one call of some permits.
	 * @param permits the permits of one call
	 * @param limits the limits
	 * @param spelling how the source names its attributes
	 * @throws InvalidLimitException if the permits do not fit the smallest limit
	 */
	public static void checkPermits(long permits, List<Limit> limits, Spelling spelling) {
		List<Limit> stored = limits.stream().filter((limit) -> limit.algorithm().isStored()).toList();
		if (stored.isEmpty()) {
			// an adaptive limit counts calls, whatever they cost: only the range is
			// checked
			stored = List.of(Limit.of(Limit.MAX_THRESHOLD, Limit.MIN_PERIOD));
		}
		try {
			AbstractRateLimiter.validate("key", permits, stored);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLimitException(ex.getMessage(), spelling.permitsFix());
		}
	}

	/**
	 * Check that limits can be settled after their call (a {@code charge}, a surface that
	 * settles what a call used): the one rule, whoever settles. A sliding log keeps one
	 * entry per permit and cannot take a charge; an in-flight limit counts calls running,
	 * not their cost.
	 * @param settledBy what settles, as its source spells it, such as
	 * {@code charge '#result'} or {@code limiter.graphql.settle}
	 * @param limits the limits it settles, their plans' included
	 * @param spelling how the source spells a limit's algorithm
	 * @throws InvalidLimitException naming the limit and the algorithms that can
	 */
	public static void checkChargeable(String settledBy, Collection<Limit> limits, Spelling spelling) {
		for (Limit limit : limits) {
			if (limit.algorithm() == Algorithm.SLIDING_LOG) {
				throw new InvalidLimitException(
						settledBy + " is given to the sliding-log limit " + limit
								+ ", which keeps one entry per permit and cannot be charged after the call",
						(spelling == Spelling.ANNOTATION)
								? "Count a charged limit with algorithm = Algorithm.SLIDING_BUCKETS, TOKEN_BUCKET or a "
										+ "calendar (limiter.limits.<name>.algorithm, .calendar), or remove charge."
								: "Set limiter.limits." + limit.name()
										+ ".algorithm to sliding-buckets or token-bucket, or give it a calendar "
										+ "(limiter.limits." + limit.name() + ".calendar).");
			}
			if (limit.algorithm() == Algorithm.IN_FLIGHT || limit.algorithm() == Algorithm.ADAPTIVE) {
				throw new InvalidLimitException(
						settledBy + " is given to the in-flight limit " + limit
								+ ", which counts calls running, not their cost",
						(spelling == Spelling.ANNOTATION)
								? "Put the charge on a limit of its own beside the in-flight one (a repeated "
										+ "@RateLimit), or remove charge."
								: "Settle a limit of its own, counted with sliding buckets, a token bucket or a "
										+ "calendar.");
			}
		}
	}

	/**
	 * Return what the counters of a group of limits belong to: {@code n:<name>} when
	 * every limit carries one same name (shared, on purpose, by every user of that name),
	 * otherwise the source's own scope.
	 * @param names the names of the limits, empty for unnamed ones
	 * @param otherwise the scope of the source, such as {@code m:<method>} or
	 * {@code r:<route>}
	 * @return the scope
	 */
	public static String scope(Collection<String> names, String otherwise) {
		Set<String> distinct = new LinkedHashSet<>(names);
		String name = (distinct.size() == 1) ? distinct.iterator().next() : "";
		return name.isEmpty() ? otherwise : "n:" + RateLimitKeys.bounded(name);
	}

	private static <T> T first(T value, T otherwise) {
		return (value != null) ? value : otherwise;
	}

	/** How a source of limits names the attributes an error asks to change. */
	public enum Spelling {

		/** {@code @RateLimit}'s attributes. */
		ANNOTATION("threshold", "slices", "localThreshold",
				"algorithm = Algorithm.SLIDING_BUCKETS (limiter.limits.<name>.algorithm: sliding-buckets).",
				"Lower permits, or raise the threshold of the smallest limit."),

		/** A named limit's properties, {@code limiter.limits.<name>.*}. */
		PROPERTY("limiter.limits.<name>.threshold", "limiter.limits.<name>.slices",
				"limiter.limits.<name>.local-threshold", "limiter.limits.<name>.algorithm to sliding-buckets.",
				"Lower permits, or raise the threshold."),

		/** A Spring Cloud Gateway route's {@code limiter.*} arguments. */
		ROUTE("limiter.threshold", "limiter.slices", "limiter.limits.<name>.local-threshold",
				"the algorithm to sliding-buckets.", "Lower limiter.permits, or raise the threshold."),

		/** The arguments of a Gateway Server MVC route's {@code Limiter} filter. */
		FILTER("threshold", "slices", "limiter.limits.<name>.local-threshold", "the algorithm to sliding-buckets.",
				"Lower permits, or raise the threshold."),

		/**
		 * The named limits a surface's own property names, such as
		 * {@code limiter.graphql.limit}: errors say the limit's properties.
		 */
		SURFACE("limiter.limits.<name>.threshold", "limiter.limits.<name>.slices",
				"limiter.limits.<name>.local-threshold", "limiter.limits.<name>.algorithm to sliding-buckets.",
				"Lower the call's cost, or raise the limit's threshold.");

		private final String threshold;

		private final String slices;

		private final String localThreshold;

		private final String bucketsAlgorithm;

		private final String permitsFix;

		Spelling(String threshold, String slices, String localThreshold, String bucketsAlgorithm, String permitsFix) {
			this.threshold = threshold;
			this.slices = slices;
			this.localThreshold = localThreshold;
			this.bucketsAlgorithm = bucketsAlgorithm;
			this.permitsFix = permitsFix;
		}

		String slices() {
			return this.slices;
		}

		/**
		 * Return how this source spells an attribute, such as {@code zone}.
		 * @param attribute the attribute
		 * @return its spelling, such as {@code limiter.zone} for a route
		 */
		public String attribute(String attribute) {
			return switch (this) {
				case ANNOTATION -> attribute + " (or limiter.limits.<name>." + attribute + ")";
				case PROPERTY -> "limiter.limits.<name>." + attribute;
				case ROUTE -> "limiter." + attribute;
				case FILTER -> attribute;
				case SURFACE -> "limiter.limits.<name>." + attribute;
			};
		}

		/**
		 * Return how an error names the operation it is about: a gateway route by its id,
		 * a surface's not at all (the surface names its property).
		 * @param id the operation's name
		 * @return the prefix of its errors, such as {@code route 'orders': }
		 */
		public String source(String id) {
			return (this == ROUTE || this == FILTER) ? "route '" + id + "': " : "";
		}

		String localThreshold() {
			return this.localThreshold;
		}

		String bucketsAlgorithm() {
			return this.bucketsAlgorithm;
		}

		String permitsFix() {
			return this.permitsFix;
		}

		String thresholdFix() {
			return (this == ANNOTATION)
					? "Set threshold to a value between 1 and " + Limit.MAX_THRESHOLD
							+ ", or name a limit (name = \"...\") defined under limiter.limits."
					: "Set " + this.threshold + " to a value between 1 and " + Limit.MAX_THRESHOLD + ".";
		}

		String periodFix() {
			return (this == ANNOTATION)
					? "Set period (in the annotation's unit, or limiter.limits.<name>.period) to a positive window "
							+ "of whole milliseconds, at most " + Limit.MAX_PERIOD.toDays() + " days."
					: "Set limiter.period (or limiter.limits.<name>.period) to a positive window of whole "
							+ "milliseconds, at most " + Limit.MAX_PERIOD.toDays() + " days.";
		}

		InvalidLimitException undefined(String name) {
			return (this == ANNOTATION) ? new InvalidLimitException(
					"limit '" + name + "' is not defined under limiter.limits and the annotation gives no threshold",
					"Define limiter.limits." + name + ".threshold (and .period) in the configuration, or give the "
							+ "annotation a threshold.")
					: new InvalidLimitException(
							((this == SURFACE) ? "the limit '" : "limiter.name '") + name
									+ "' is not defined with a threshold and a period",
							"Define limiter.limits." + name + ".threshold and limiter.limits." + name
									+ ".period, or correct the name.");
		}

	}

}
