package dev.limiter;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A rate limit: at most {@code threshold} permits per {@code period}, counted by an
 * {@link Algorithm} (the exact sliding-window log unless another is chosen).
 * <p>
 * Limits are values: two limits with the same threshold, period and algorithm (and
 * slices, for buckets) count into the same state for a key, whatever their names. The
 * name only labels the limit in headers, problem bodies and messages.
 */
public final class Limit {

	/** The largest threshold a limit accepts. */
	public static final long MAX_THRESHOLD = Integer.MAX_VALUE;

	/** The shortest period a limit accepts. */
	public static final Duration MIN_PERIOD = Duration.ofMillis(1);

	/** The longest period a limit accepts (100 years of 365 days). */
	public static final Duration MAX_PERIOD = Duration.ofDays(36_500);

	/** The number of slices of a bucketed window unless another is chosen. */
	public static final int DEFAULT_SLICES = 60;

	/** The most slices a bucketed window accepts. */
	public static final int MAX_SLICES = 3_600;

	private static final Set<ChronoUnit> CALENDAR_UNITS = EnumSet.of(ChronoUnit.MINUTES, ChronoUnit.HOURS,
			ChronoUnit.DAYS, ChronoUnit.WEEKS, ChronoUnit.MONTHS);

	/** The name of a limit that was given none. */
	public static final String DEFAULT_NAME = "default";

	private final String name;

	private final long threshold;

	private final Duration period;

	private final FailurePolicy failurePolicy;

	private final long localThreshold;

	private final Algorithm algorithm;

	private final int slices;

	private final ChronoUnit calendar;

	private final ZoneId zone;

	private final Duration penalty;

	private Limit(String name, long threshold, Duration period) {
		this(name, threshold, period, null, 0, Algorithm.SLIDING_LOG, DEFAULT_SLICES, null, null, Duration.ZERO);
	}

	private Limit(String name, long threshold, Duration period, FailurePolicy failurePolicy, long localThreshold,
			Algorithm algorithm, int slices, ChronoUnit calendar, ZoneId zone, Duration penalty) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("name must not be null or blank");
		}
		if (threshold < 1 || threshold > MAX_THRESHOLD) {
			throw new IllegalArgumentException("threshold must be between 1 and " + MAX_THRESHOLD + ", was " + threshold
					+ " (limit '" + name + "')");
		}
		if (period == null) {
			throw new IllegalArgumentException("period must not be null (limit '" + name + "')");
		}
		if (period.compareTo(MIN_PERIOD) < 0 || period.compareTo(MAX_PERIOD) > 0) {
			throw new IllegalArgumentException("period must be between 1ms and " + MAX_PERIOD.toDays() + " days, was "
					+ period + " (limit '" + name + "')");
		}
		if (period.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException(
					"period must be a whole number of milliseconds, was " + period + " (limit '" + name + "')");
		}
		if (localThreshold < 0 || localThreshold > MAX_THRESHOLD) {
			throw new IllegalArgumentException("localThreshold must be between 0 (the threshold) and " + MAX_THRESHOLD
					+ ", was " + localThreshold + " (limit '" + name + "')");
		}
		if (algorithm == null) {
			throw new IllegalArgumentException("algorithm must not be null (limit '" + name + "')");
		}
		if (slices < 1 || slices > MAX_SLICES) {
			throw new IllegalArgumentException(
					"slices must be between 1 and " + MAX_SLICES + ", was " + slices + " (limit '" + name + "')");
		}
		if (calendar != null && !CALENDAR_UNITS.contains(calendar)) {
			throw new IllegalArgumentException("calendar must be one of minute, hour, day, week and month, was "
					+ calendar + " (limit '" + name + "')");
		}
		if (penalty == null || penalty.isNegative() || penalty.compareTo(MAX_PERIOD) > 0
				|| penalty.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("penalty must be between 0 (none) and " + MAX_PERIOD.toDays()
					+ " days in whole milliseconds, was " + penalty + " (limit '" + name + "')");
		}
		if (!penalty.isZero() && (algorithm == Algorithm.IN_FLIGHT || algorithm == Algorithm.ADAPTIVE)) {
			throw new IllegalArgumentException("penalty is given to a limit on calls in flight (limit '" + name
					+ "'): a penalty follows a rejection of calls per time, a busy slot is not abuse");
		}
		this.name = name;
		this.threshold = threshold;
		this.penalty = penalty;
		this.failurePolicy = failurePolicy;
		this.localThreshold = localThreshold;
		this.algorithm = algorithm;
		this.slices = slices;
		this.calendar = (algorithm == Algorithm.CALENDAR) ? calendar : null;
		this.zone = (this.calendar != null) ? zone : null;
		// a calendar's windows vary in length: its period is the usual one, for headers
		// and messages, and never decides anything
		this.period = (this.calendar != null) ? usual(this.calendar) : period;
	}

	private static Duration usual(ChronoUnit calendar) {
		return (calendar == ChronoUnit.MONTHS) ? Duration.ofDays(31) : calendar.getDuration();
	}

	/**
	 * Create a limit of {@code threshold} permits per {@code period}.
	 * @param threshold the most permits in any window, 1 to {@link #MAX_THRESHOLD}
	 * @param period the window, a whole number of milliseconds from 1ms to
	 * {@link #MAX_PERIOD}
	 * @return the limit, named {@value #DEFAULT_NAME}
	 * @throws IllegalArgumentException if an argument is out of range
	 */
	public static Limit of(long threshold, Duration period) {
		return new Limit(DEFAULT_NAME, threshold, period);
	}

	/**
	 * Create a named limit of {@code threshold} permits per {@code period}; errors name
	 * the limit.
	 * @param name the name shown in headers, messages and errors
	 * @param threshold the most permits in any window, 1 to {@link #MAX_THRESHOLD}
	 * @param period the window, a whole number of milliseconds from 1ms to
	 * {@link #MAX_PERIOD}
	 * @return the limit
	 * @throws IllegalArgumentException if an argument is out of range
	 */
	public static Limit of(String name, long threshold, Duration period) {
		return new Limit(name, threshold, period);
	}

	/**
	 * Return a copy of this limit with another name.
	 * @param name the name shown in headers and messages
	 * @return the named limit
	 */
	public Limit named(String name) {
		return new Limit(name, this.threshold, this.period, this.failurePolicy, this.localThreshold, this.algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit with its own failure policy.
	 * @param failurePolicy what to do when the store cannot answer, or {@code null} for
	 * the limiter's default
	 * @return the limit
	 */
	public Limit withFailurePolicy(FailurePolicy failurePolicy) {
		return new Limit(this.name, this.threshold, this.period, failurePolicy, this.localThreshold, this.algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit with the threshold that each instance applies on its
	 * own under {@link FailurePolicy#LOCAL}.
	 * @param localThreshold the per-instance threshold, or 0 for the limit's threshold
	 * @return the limit
	 */
	public Limit withLocalThreshold(long localThreshold) {
		return new Limit(this.name, this.threshold, this.period, this.failurePolicy, localThreshold, this.algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit with another threshold; calls counted under this limit
	 * keep counting under the copy (the state of a limit does not depend on its
	 * threshold).
	 * @param threshold the most permits in any window, 1 to {@link #MAX_THRESHOLD}
	 * @return the limit
	 * @throws IllegalArgumentException if the threshold is out of range
	 */
	public Limit withThreshold(long threshold) {
		return new Limit(this.name, threshold, this.period, this.failurePolicy, this.localThreshold, this.algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit over another period; it counts in a state of its own.
	 * @param period the window, a whole number of milliseconds from 1ms to
	 * {@link #MAX_PERIOD}
	 * @return the limit
	 * @throws IllegalArgumentException if the period is out of range
	 */
	public Limit withPeriod(Duration period) {
		return new Limit(this.name, this.threshold, period, this.failurePolicy, this.localThreshold, this.algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit counted by another algorithm.
	 * @param algorithm the algorithm
	 * @return the limit
	 */
	public Limit withAlgorithm(Algorithm algorithm) {
		return new Limit(this.name, this.threshold, this.period, this.failurePolicy, this.localThreshold, algorithm,
				this.slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit whose window, under {@link Algorithm#SLIDING_BUCKETS},
	 * is cut into another number of slices.
	 * @param slices the slices, 1 to {@link #MAX_SLICES}
	 * @return the limit
	 */
	public Limit withSlices(int slices) {
		return new Limit(this.name, this.threshold, this.period, this.failurePolicy, this.localThreshold,
				this.algorithm, slices, this.calendar, this.zone, this.penalty);
	}

	/**
	 * Return a copy of this limit counted in the windows of a calendar: at most the
	 * threshold in each minute, hour, day, week (ISO, from Monday) or month of a time
	 * zone, from boundary to boundary, whatever the length of that window (a day with a
	 * daylight-saving change lasts 23 or 25 hours). Its period plays no part.
	 * @param calendar {@link ChronoUnit#MINUTES}, {@link ChronoUnit#HOURS},
	 * {@link ChronoUnit#DAYS}, {@link ChronoUnit#WEEKS} or {@link ChronoUnit#MONTHS}
	 * @param zone the zone whose clock draws the boundaries, or {@code null} for UTC
	 * @return the limit, counted by {@link Algorithm#CALENDAR}
	 * @throws IllegalArgumentException if the unit is not one of those
	 */
	public Limit withCalendar(ChronoUnit calendar, ZoneId zone) {
		if (calendar == null) {
			throw new IllegalArgumentException("calendar must not be null (limit '" + this.name + "')");
		}
		return new Limit(this.name, this.threshold, this.period, this.failurePolicy, this.localThreshold,
				Algorithm.CALENDAR, this.slices, calendar, (zone != null) ? zone.normalized() : ZoneOffset.UTC,
				this.penalty);
	}

	/**
	 * Return a copy of this limit that, once it rejects a call, refuses every call of
	 * that caller for a while: a brute-force guard's "blocked for an hour after five
	 * failed attempts". The penalty runs from the rejection that starts it; calls refused
	 * during it do not lengthen it.
	 * @param penalty how long a rejected caller stays refused, {@link Duration#ZERO} for
	 * none, in whole milliseconds up to {@link #MAX_PERIOD}
	 * @return the limit
	 * @throws IllegalArgumentException if the penalty is out of range, or the limit
	 * counts calls in flight
	 */
	public Limit withPenalty(Duration penalty) {
		return new Limit(this.name, this.threshold, this.period, this.failurePolicy, this.localThreshold,
				this.algorithm, this.slices, this.calendar, this.zone, penalty);
	}

	/**
	 * Return how long a caller this limit rejected stays refused.
	 * @return the penalty, {@link Duration#ZERO} for none
	 */
	public Duration penalty() {
		return this.penalty;
	}

	/**
	 * Return the penalty in microseconds, the unit of time inside the stores.
	 * @return the penalty in microseconds, 0 for none
	 */
	public long penaltyMicros() {
		return this.penalty.toNanos() / 1_000;
	}

	/**
	 * Return the calendar whose windows count this limit.
	 * @return the unit of the calendar's windows, or {@code null} when the limit is not
	 * counted by a calendar (a {@link Algorithm#CALENDAR} limit without one counts fixed
	 * windows of its period from the epoch)
	 */
	public ChronoUnit calendar() {
		return this.calendar;
	}

	/**
	 * Return the time zone whose clock draws the boundaries of the calendar's windows.
	 * @return the zone, or {@code null} when the limit is not counted by a calendar
	 */
	public ZoneId zone() {
		return this.zone;
	}

	/**
	 * Return the algorithm that counts this limit.
	 * @return the algorithm
	 */
	public Algorithm algorithm() {
		return this.algorithm;
	}

	/**
	 * Return the number of slices of the window under {@link Algorithm#SLIDING_BUCKETS}.
	 * @return the slices
	 */
	public int slices() {
		return this.slices;
	}

	/**
	 * Return the length of one slice under {@link Algorithm#SLIDING_BUCKETS}: the period
	 * divided by the slices, rounded down to whole milliseconds, at least 1ms.
	 * @return the slice length in microseconds
	 */
	public long sliceMicros() {
		return Math.max(1, this.period.toMillis() / this.slices) * 1_000;
	}

	/**
	 * Return the time in which a {@link Algorithm#TOKEN_BUCKET} earns one token back: the
	 * period divided by the threshold, rounded up to whole microseconds so that the
	 * bucket never refills faster than the threshold per period.
	 * @return the refill interval in microseconds
	 */
	public long refillMicros() {
		long period = periodMicros();
		return (period + this.threshold - 1) / this.threshold;
	}

	/**
	 * Return this limit's own failure policy.
	 * @return the policy, or {@code null} when the limiter's default applies
	 */
	public FailurePolicy failurePolicy() {
		return this.failurePolicy;
	}

	/**
	 * Return the threshold each instance applies on its own under
	 * {@link FailurePolicy#LOCAL}.
	 * @return the local threshold; the threshold when none was set
	 */
	public long localThreshold() {
		return (this.localThreshold > 0) ? this.localThreshold : this.threshold;
	}

	public String name() {
		return this.name;
	}

	public long threshold() {
		return this.threshold;
	}

	public Duration period() {
		return this.period;
	}

	/**
	 * Return the period in microseconds, the unit of time inside the stores.
	 * @return the period in microseconds
	 */
	public long periodMicros() {
		return this.period.toNanos() / 1_000;
	}

	/**
	 * Return whether this limit counts into the same state as another one: the same
	 * period and algorithm, and the same slices for buckets. The thresholds may differ: a
	 * limit whose threshold changes keeps counting in the same state.
	 * @param other the other limit
	 * @return whether both share their state
	 */
	public boolean sameWindowAs(Limit other) {
		return this.period.equals(other.period) && this.algorithm == other.algorithm
				&& (this.algorithm != Algorithm.SLIDING_BUCKETS || this.slices == other.slices)
				&& this.calendar == other.calendar && Objects.equals(this.zone, other.zone);
	}

	@Override
	public boolean equals(Object obj) {
		if (this == obj) {
			return true;
		}
		if (!(obj instanceof Limit other)) {
			return false;
		}
		return this.name.equals(other.name) && this.threshold == other.threshold && sameWindowAs(other)
				&& this.failurePolicy == other.failurePolicy && this.localThreshold == other.localThreshold
				&& this.slices == other.slices && this.penalty.equals(other.penalty);
	}

	@Override
	public int hashCode() {
		// By hand rather than Objects.hash: the rejection cache hashes limits on
		// every call.
		int hash = this.name.hashCode();
		hash = 31 * hash + Long.hashCode(this.threshold);
		hash = 31 * hash + this.period.hashCode();
		hash = 31 * hash + Objects.hashCode(this.failurePolicy);
		hash = 31 * hash + Long.hashCode(this.localThreshold);
		hash = 31 * hash + this.algorithm.hashCode();
		hash = 31 * hash + Objects.hashCode(this.calendar);
		hash = 31 * hash + Objects.hashCode(this.zone);
		hash = 31 * hash + this.penalty.hashCode();
		return 31 * hash + this.slices;
	}

	/**
	 * Return the period as people read it in messages, such as {@code 30s} or {@code 1h}.
	 * @return the period's text
	 */
	public String periodText() {
		if (this.calendar != null) {
			String unit = this.calendar.name().toLowerCase(java.util.Locale.ROOT);
			return unit.substring(0, unit.length() - 1);
		}
		return text(this.period);
	}

	private static String text(Duration duration) {
		return duration.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
	}

	@Override
	public String toString() {
		String counted = switch (this.algorithm) {
			case SLIDING_LOG -> "";
			case SLIDING_BUCKETS -> ", sliding-buckets of " + this.slices;
			case CALENDAR -> (this.calendar != null) ? ", calendar in " + this.zone.getId() : ", calendar";
			default -> ", " + this.algorithm.text();
		};
		if (this.algorithm == Algorithm.IN_FLIGHT) {
			return "'" + this.name + "' (" + this.threshold + " in flight, lease " + periodText() + ")";
		}
		if (this.algorithm == Algorithm.ADAPTIVE) {
			return "'" + this.name + "' (adaptive, up to " + this.threshold + " in flight)";
		}
		String penalty = this.penalty.isZero() ? "" : ", penalty " + text(this.penalty);
		return "'" + this.name + "' (" + this.threshold + " per " + periodText() + counted + penalty + ")";
	}

}
