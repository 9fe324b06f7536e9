package dev.limiter.internal.offenders;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * This instance's count of rejections per limit and caller over the last two windows of
 * five minutes, in bounded memory: per limit and window a Space-Saving sketch of
 * {@value #CAPACITY} counters (Metwally et al.), which keeps every caller rejected more
 * than a {@value #CAPACITY}th of the window's rejections, never counts one low, and
 * counts one high by at most the smallest counter.
 */
public final class TopOffenders implements RejectionTally, OffenderRanking {

	/** Counters per limit and window. */
	public static final int CAPACITY = 100;

	/** The length of one window; a ranking covers the current and the previous one. */
	public static final Duration WINDOW = Duration.ofMinutes(5);

	private final LongSupplier nanoTime;

	private final long windowNanos;

	private final Map<String, Windows> limits = new ConcurrentHashMap<>();

	public TopOffenders() {
		this(System::nanoTime, WINDOW);
	}

	/**
	 * Create a tally on a given time, for tests that move it.
	 * @param nanoTime the time in nanoseconds
	 * @param window the length of one window
	 */
	public TopOffenders(LongSupplier nanoTime, Duration window) {
		this.nanoTime = nanoTime;
		this.windowNanos = window.toNanos();
	}

	@Override
	public void rejected(String limit, String key) {
		this.limits.computeIfAbsent(limit, (name) -> new Windows())
			.add(key, this.nanoTime.getAsLong() / this.windowNanos);
	}

	@Override
	public List<Offender> top(String limit, int count) {
		return top(counts(limit), count);
	}

	/**
	 * Return every counted caller of a limit with its rejections in the last two windows.
	 * @param limit the limit's name
	 * @return the rejections by key
	 */
	public Map<String, Long> counts(String limit) {
		Windows windows = this.limits.get(limit);
		return (windows != null) ? windows.counts(this.nanoTime.getAsLong() / this.windowNanos) : Map.of();
	}

	/**
	 * Return the names of the limits that rejected any call in the last two windows.
	 * @return the names
	 */
	public List<String> limits() {
		return new ArrayList<>(this.limits.keySet());
	}

	/**
	 * Rank counts, most first, ties by key.
	 * @param counts rejections by key
	 * @param count how many at most
	 * @return the ranking
	 */
	public static List<Offender> top(Map<String, Long> counts, int count) {
		return counts.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
				.thenComparing(Map.Entry.comparingByKey()))
			.limit(count)
			.map((entry) -> new Offender(entry.getKey(), entry.getValue()))
			.toList();
	}

	/** The current and the previous window of one limit. */
	private static final class Windows {

		private long index = Long.MIN_VALUE;

		private Map<String, Long> current = new HashMap<>();

		private Map<String, Long> previous = Map.of();

		synchronized void add(String key, long index) {
			roll(index);
			Long counted = this.current.get(key);
			if (counted != null) {
				this.current.put(key, counted + 1);
				return;
			}
			if (this.current.size() < CAPACITY) {
				this.current.put(key, 1L);
				return;
			}
			// Space-Saving: the newcomer takes the smallest counter's place and count.
			Map.Entry<String, Long> smallest = null;
			for (Map.Entry<String, Long> entry : this.current.entrySet()) {
				if (smallest == null || entry.getValue() < smallest.getValue()) {
					smallest = entry;
				}
			}
			this.current.remove(smallest.getKey());
			this.current.put(key, smallest.getValue() + 1);
		}

		synchronized Map<String, Long> counts(long index) {
			roll(index);
			Map<String, Long> counts = new HashMap<>(this.previous);
			this.current.forEach((key, counted) -> counts.merge(key, counted, Long::sum));
			return counts;
		}

		private void roll(long index) {
			if (index == this.index) {
				return;
			}
			this.previous = (index == this.index + 1) ? this.current : Map.of();
			this.current = new HashMap<>();
			this.index = index;
		}

	}

}
