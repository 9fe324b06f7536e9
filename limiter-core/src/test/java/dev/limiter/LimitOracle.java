package dev.limiter;

import java.util.ArrayList;
import java.util.List;

/**
 * An independent model of one limit under its algorithm, written from the algorithm's
 * definition rather than from either engine: which calls it admits, how many permits are
 * left, and the promise it keeps. Times are microseconds.
 */
public abstract class LimitOracle {

	protected Limit limit;

	protected final List<long[]> admitted = new ArrayList<>();

	protected LimitOracle(Limit limit) {
		this.limit = limit;
	}

	/**
	 * Return the oracle of a limit's algorithm.
	 * @param limit the limit
	 * @return its oracle
	 */
	public static LimitOracle of(Limit limit) {
		return switch (limit.algorithm()) {
			case SLIDING_LOG -> new Log(limit);
			case SLIDING_BUCKETS -> new Buckets(limit);
			case TOKEN_BUCKET -> new TokenBucket(limit);
			case CALENDAR -> new Calendar(limit);
			case IN_FLIGHT -> new InFlight(limit);
			case ADAPTIVE -> throw new IllegalArgumentException("No store counts an adaptive limit: " + limit);
		};
	}

	/**
	 * Return whether a call of {@code permits} at {@code now} fits, given what was
	 * admitted before it.
	 */
	public abstract boolean fits(long now, long permits);

	/** Return the permits left at {@code now}. */
	public abstract long remaining(long now);

	/**
	 * Take a new threshold (same period and algorithm) at {@code now}: what was admitted
	 * keeps counting under the new number.
	 */
	public void retarget(Limit limit, long now) {
		this.limit = limit;
	}

	/**
	 * Record an admitted call.
	 */
	public void admit(long now, long permits) {
		this.admitted.add(new long[] { now, permits });
	}

	/**
	 * Record what an admitted call made at {@code at} turned out to cost beyond what it
	 * took, at {@code now}: counted past the threshold if need be; a negative number
	 * gives back up to what still counts of the call's time (its slice, its window).
	 */
	public void charge(long now, long at, long permits) {
		if (permits > 0) {
			this.admitted.add(new long[] { now, permits });
			return;
		}
		long back = -permits;
		for (long[] entry : this.admitted) {
			if (back > 0 && sameUnit(entry[0], at) && stillCounts(now, at)) {
				long taken = Math.min(entry[1], back);
				entry[1] -= taken;
				back -= taken;
			}
		}
	}

	/**
	 * Whether two times fall in the unit a refund gives back from (a slice, a window).
	 */
	protected boolean sameUnit(long first, long second) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no charges");
	}

	/** Whether what was taken at {@code at} still counts at {@code now}. */
	protected boolean stillCounts(long now, long at) {
		return true;
	}

	/**
	 * Return the longest wait a refusal under this limit names, {@code Long.MAX_VALUE}
	 * when it names the exact wait.
	 * @return the cap in microseconds
	 */
	public long waitCap() {
		return Long.MAX_VALUE;
	}

	/**
	 * Return the exact wait from {@code now} until {@code permits} fit, if nothing else
	 * is admitted meanwhile (and no call in flight ends or renews).
	 */
	public long exactWait(long now, long permits) {
		if (fits(now, permits)) {
			return 0;
		}
		long low = 0;
		long high = 1;
		while (!fits(now + high, permits)) {
			low = high;
			high *= 2;
		}
		while (high - low > 1) {
			long middle = low + (high - low) / 2;
			if (fits(now + middle, permits)) {
				high = middle;
			}
			else {
				low = middle;
			}
		}
		return high;
	}

	/**
	 * Return how the algorithm's promise is broken by what was admitted up to
	 * {@code now}, or {@code null} when it holds.
	 */
	public abstract String broken(long now);

	public Limit limit() {
		return this.limit;
	}

	/** The permits admitted in (from, to]. */
	protected long admittedIn(long from, long to) {
		long count = 0;
		for (long[] entry : this.admitted) {
			count += (entry[0] > from && entry[0] <= to) ? entry[1] : 0;
		}
		return count;
	}

	/** The window's promise: never more than N in any window (t - W, t]. */
	protected String windowBroken(long now) {
		long inWindow = admittedIn(now - this.limit.periodMicros(), now);
		return (inWindow > this.limit.threshold())
				? inWindow + " admitted in the window ending at " + now + " under " + this.limit : null;
	}

	/** The exact sliding-window log. */
	static final class Log extends LimitOracle {

		Log(Limit limit) {
			super(limit);
		}

		@Override
		public boolean fits(long now, long permits) {
			return admittedIn(now - this.limit.periodMicros(), now) + permits <= this.limit.threshold();
		}

		@Override
		public long remaining(long now) {
			return this.limit.threshold() - admittedIn(now - this.limit.periodMicros(), now);
		}

		@Override
		public String broken(long now) {
			return windowBroken(now);
		}

	}

	/**
	 * Sliding buckets: calls are counted in slices of {@code W / slices} whole
	 * milliseconds; a call counts its own slice and as many whole slices before it as
	 * cover W.
	 */
	static final class Buckets extends LimitOracle {

		private final long slice;

		private final long covered;

		Buckets(Limit limit) {
			super(limit);
			this.slice = Math.max(1, limit.period().toMillis() / limit.slices()) * 1_000;
			long slices = 0;
			while (slices * this.slice < limit.periodMicros()) {
				slices++;
			}
			this.covered = slices;
		}

		@Override
		protected boolean sameUnit(long first, long second) {
			return Math.floorDiv(first, this.slice) == Math.floorDiv(second, this.slice);
		}

		@Override
		protected boolean stillCounts(long now, long at) {
			return Math.floorDiv(at, this.slice) >= Math.floorDiv(now, this.slice) - this.covered;
		}

		private long counted(long now) {
			long first = Math.floorDiv(now, this.slice) - this.covered;
			long count = 0;
			for (long[] entry : this.admitted) {
				count += (Math.floorDiv(entry[0], this.slice) >= first && entry[0] <= now) ? entry[1] : 0;
			}
			return count;
		}

		@Override
		public boolean fits(long now, long permits) {
			return counted(now) + permits <= this.limit.threshold();
		}

		@Override
		public long remaining(long now) {
			return this.limit.threshold() - counted(now);
		}

		@Override
		public String broken(long now) {
			return windowBroken(now);
		}

	}

	/**
	 * The token bucket as a continuous leaky bucket: a level of work in microseconds that
	 * drains one microsecond per microsecond; a permit adds one refill interval (W / N
	 * rounded up); a call fits while the level stays within N intervals.
	 */
	static final class TokenBucket extends LimitOracle {

		private long interval;

		private long level;

		private long lastUpdate = Long.MIN_VALUE;

		/** Admissions before this time were under another threshold. */
		private long changedAt = Long.MIN_VALUE;

		TokenBucket(Limit limit) {
			super(limit);
			this.interval = interval(limit);
		}

		private static long interval(Limit limit) {
			long interval = limit.periodMicros() / limit.threshold();
			return (interval * limit.threshold() < limit.periodMicros()) ? interval + 1 : interval;
		}

		/**
		 * The level is work in intervals: the permits it holds keep counting, each now
		 * worth the new interval (rounded up, as a change must never add room).
		 */
		@Override
		public void retarget(Limit limit, long now) {
			long interval = interval(limit);
			long level = levelAt(now);
			if (interval != this.interval && level > 0) {
				this.level = (long) Math.ceil((double) level / this.interval * interval);
				this.lastUpdate = now;
			}
			this.interval = interval;
			this.changedAt = now;
			super.retarget(limit, now);
		}

		private long levelAt(long now) {
			return (this.lastUpdate == Long.MIN_VALUE) ? 0 : Math.max(0, this.level - (now - this.lastUpdate));
		}

		@Override
		public boolean fits(long now, long permits) {
			return levelAt(now) + permits * this.interval <= this.limit.threshold() * this.interval;
		}

		@Override
		public long remaining(long now) {
			long level = levelAt(now);
			return this.limit.threshold() - (level + this.interval - 1) / this.interval;
		}

		@Override
		public void admit(long now, long permits) {
			this.level = levelAt(now) + permits * this.interval;
			this.lastUpdate = now;
			super.admit(now, permits);
		}

		@Override
		public void charge(long now, long at, long permits) {
			this.level = Math.max(0, levelAt(now) + permits * this.interval);
			this.lastUpdate = now;
		}

		@Override
		public String broken(long now) {
			// at most N + N·t/W in any interval [from, now] of length t
			for (long[] entry : this.admitted) {
				long from = entry[0];
				if (from < this.changedAt) {
					// the promise holds for the intervals under one threshold
					continue;
				}
				long count = admittedIn(from - 1, now);
				double allowed = this.limit.threshold()
						+ (double) this.limit.threshold() * (now - from) / this.limit.periodMicros();
				if (count > allowed) {
					return count + " admitted in [" + from + ", " + now + "] under " + this.limit + ", at most "
							+ allowed;
				}
			}
			return null;
		}

	}

	/**
	 * Calendar windows: the permits admitted in the window of {@code now} (the same local
	 * minute, hour, day, ISO week or month of the zone, or the same multiple of the
	 * period from the epoch), at most N in each.
	 */
	static final class Calendar extends LimitOracle {

		Calendar(Limit limit) {
			super(limit);
		}

		/** The window of a time, named from the zone's calendar rather than drawn. */
		private Object window(long micros) {
			if (this.limit.calendar() == null) {
				return Math.floorDiv(micros, this.limit.periodMicros());
			}
			java.time.ZonedDateTime time = java.time.Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS)
				.atZone(this.limit.zone());
			java.time.LocalDateTime local = time.toLocalDateTime();
			return switch (this.limit.calendar()) {
				// a local hour or minute that a change of offset repeats is two windows
				case MINUTES -> List.of(local.withSecond(0).withNano(0), time.getOffset());
				case HOURS -> List.of(local.withMinute(0).withSecond(0).withNano(0), time.getOffset());
				case DAYS -> local.toLocalDate();
				case WEEKS -> List.of(local.get(java.time.temporal.IsoFields.WEEK_BASED_YEAR),
						local.get(java.time.temporal.IsoFields.WEEK_OF_WEEK_BASED_YEAR));
				case MONTHS -> java.time.YearMonth.from(local);
				default -> throw new IllegalStateException(this.limit.toString());
			};
		}

		@Override
		protected boolean sameUnit(long first, long second) {
			return window(first).equals(window(second));
		}

		@Override
		protected boolean stillCounts(long now, long at) {
			return window(now).equals(window(at));
		}

		private long counted(long now) {
			Object window = window(now);
			long count = 0;
			for (long[] entry : this.admitted) {
				count += (entry[0] <= now && window(entry[0]).equals(window)) ? entry[1] : 0;
			}
			return count;
		}

		@Override
		public boolean fits(long now, long permits) {
			return counted(now) + permits <= this.limit.threshold();
		}

		@Override
		public long remaining(long now) {
			return this.limit.threshold() - counted(now);
		}

		@Override
		public String broken(long now) {
			long counted = counted(now);
			return (counted > this.limit.threshold())
					? counted + " admitted in the calendar window of " + now + " under " + this.limit : null;
		}

	}

	/**
	 * Calls in flight: each admitted call holds its permits' slots from its admission
	 * until it ends or its lease ends unrenewed; never more than N held at once. A
	 * renewal restarts the lease of a slot still held, and never revives one whose lease
	 * ended.
	 */
	public static final class InFlight extends LimitOracle {

		/** Per call: admitted at, permits, end of lease, 1 when ended. */
		private final List<long[]> calls = new ArrayList<>();

		InFlight(Limit limit) {
			super(limit);
		}

		private long heldAt(long now) {
			long held = 0;
			for (long[] call : this.calls) {
				held += (call[3] == 0 && call[2] > now) ? call[1] : 0;
			}
			return held;
		}

		@Override
		public boolean fits(long now, long permits) {
			return heldAt(now) + permits <= this.limit.threshold();
		}

		@Override
		public long remaining(long now) {
			return this.limit.threshold() - heldAt(now);
		}

		@Override
		public void admit(long now, long permits) {
			admitCall(now, permits);
		}

		/**
		 * Record an admitted call.
		 * @return the call's number, for {@link #end}
		 */
		public int admitCall(long now, long permits) {
			this.calls.add(new long[] { now, permits, now + this.limit.periodMicros(), 0 });
			super.admit(now, permits);
			return this.calls.size() - 1;
		}

		/** Return how many calls were admitted. */
		public int calls() {
			return this.calls.size();
		}

		/** The call numbered {@code call} ended: its slots are free. */
		public void end(int call) {
			this.calls.get(call)[3] = 1;
		}

		/** Every running call's instance renews its leases at {@code now}. */
		public void renew(long now) {
			for (long[] call : this.calls) {
				if (call[3] == 0 && call[2] > now) {
					call[2] = now + this.limit.periodMicros();
				}
			}
		}

		@Override
		public long waitCap() {
			return Math.min(250_000, this.limit.periodMicros());
		}

		@Override
		public String broken(long now) {
			long held = heldAt(now);
			return (held > this.limit.threshold()) ? held + " in flight at " + now + " under " + this.limit : null;
		}

	}

}
