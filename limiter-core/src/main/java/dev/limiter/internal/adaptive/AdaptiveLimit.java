package dev.limiter.internal.adaptive;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A limit on the calls in flight that this instance learns from the round trips and the
 * drops of its own admitted calls, with no store: a call is admitted while fewer than the
 * learned limit are in flight (and, for a class with a {@link Share}, fewer than its part
 * of it), and each admitted call's end moves the limit as its {@link AdaptiveStrategy}
 * says, between a minimum and a maximum.
 * <p>
 * Admitting is a compare-and-set on a counter; learning takes a lock, once per ended
 * call.
 */
public final class AdaptiveLimit {

	private final AdaptiveStrategy strategy;

	private final int min;

	private final int max;

	private final LongSupplier nanoClock;

	private final AtomicInteger inFlight = new AtomicInteger();

	private volatile int limit;

	private double exactLimit;

	/** The fewest calls a window takes before the limit moves. */
	static final int WINDOW_CALLS = 10;

	/** The shortest a window lasts, from its first call's admission. */
	static final long WINDOW_NANOS = 100_000_000L;

	private int windowCalls;

	private long windowStart;

	private long windowRttSum;

	private long windowMinRtt;

	private int windowInFlight;

	private boolean windowDropped;

	/**
	 * Create a limit.
	 * @param strategy how it learns
	 * @param initial the limit before anything is learned
	 * @param min the lowest it learns down to
	 * @param max the highest it learns up to
	 * @param nanoClock the clock that times calls, {@link System#nanoTime} but in tests
	 */
	public AdaptiveLimit(AdaptiveStrategy strategy, int initial, int min, int max, LongSupplier nanoClock) {
		if (min < 1 || max < min || initial < min || initial > max) {
			throw new IllegalArgumentException(
					"Expected 1 <= min <= initial <= max, got min " + min + ", initial " + initial + ", max " + max);
		}
		this.strategy = strategy;
		this.min = min;
		this.max = max;
		this.nanoClock = nanoClock;
		this.limit = initial;
		this.exactLimit = initial;
	}

	/**
	 * Admit a call if the limit has room for it, and for its class.
	 * @param share the call's class, or {@code null} for one that may use the whole limit
	 * @return the admitted call, to end with {@link Permit#end}, or {@code null} when the
	 * call is refused
	 */
	public Permit tryAcquire(Share share) {
		int limit = this.limit;
		if (share != null && !share.tryAcquire(limit)) {
			return null;
		}
		for (;;) {
			int running = this.inFlight.get();
			if (running >= limit) {
				if (share != null) {
					share.release();
				}
				return null;
			}
			if (this.inFlight.compareAndSet(running, running + 1)) {
				return new Permit(this, share, running + 1, this.nanoClock.getAsLong());
			}
		}
	}

	/**
	 * Return the limit learned so far.
	 * @return the most calls in flight at once now
	 */
	public int limit() {
		return this.limit;
	}

	/**
	 * Return the calls in flight.
	 * @return the admitted calls not yet ended
	 */
	public int inFlight() {
		return this.inFlight.get();
	}

	private void end(Permit permit, boolean dropped) {
		long now = this.nanoClock.getAsLong();
		this.inFlight.decrementAndGet();
		if (permit.share != null) {
			permit.share.release();
		}
		long rtt = Math.max(1, now - permit.startNanos);
		synchronized (this) {
			if (this.windowCalls == 0) {
				this.windowStart = permit.startNanos;
				this.windowMinRtt = Long.MAX_VALUE;
			}
			this.windowCalls++;
			this.windowRttSum += rtt;
			this.windowMinRtt = Math.min(this.windowMinRtt, rtt);
			this.windowInFlight = Math.max(this.windowInFlight, permit.inFlight);
			this.windowDropped |= dropped;
			// a drop is news at once: a backend that refuses fast refuses many in a
			// window
			if (!dropped && (this.windowCalls < WINDOW_CALLS || now - this.windowStart < WINDOW_NANOS)) {
				return;
			}
			AdaptiveStrategy.Sample sample = new AdaptiveStrategy.Sample(this.windowRttSum / this.windowCalls,
					this.windowMinRtt, this.windowInFlight, this.windowDropped, now);
			this.windowCalls = 0;
			this.windowRttSum = 0;
			this.windowInFlight = 0;
			this.windowDropped = false;
			double next = this.strategy.next(this.exactLimit, sample);
			this.exactLimit = Math.max(this.min, Math.min(this.max, next));
			this.limit = (int) this.exactLimit;
		}
	}

	/**
	 * An admitted call, ended once.
	 */
	public static final class Permit {

		private final AdaptiveLimit limit;

		private final Share share;

		private final int inFlight;

		private final long startNanos;

		private final AtomicInteger ended = new AtomicInteger();

		private Permit(AdaptiveLimit limit, Share share, int inFlight, long startNanos) {
			this.limit = limit;
			this.share = share;
			this.inFlight = inFlight;
			this.startNanos = startNanos;
		}

		/**
		 * End the call, once: its time and outcome teach the limit.
		 * @param dropped whether it failed as an overloaded backend fails
		 */
		public void end(boolean dropped) {
			if (this.ended.compareAndSet(0, 1)) {
				this.limit.end(this, dropped);
			}
		}

		/**
		 * Give the slot back without teaching the limit: another limit of the same call
		 * refused it, so it never ran.
		 */
		public void giveBack() {
			if (this.ended.compareAndSet(0, 1)) {
				this.limit.inFlight.decrementAndGet();
				if (this.share != null) {
					this.share.release();
				}
			}
		}

	}

	/**
	 * A class of calls that may use only part of the learned limit, so that it is shed
	 * first as the limit falls: a plan's {@code share}.
	 */
	public static final class Share {

		private final double fraction;

		private final AtomicInteger inFlight = new AtomicInteger();

		/**
		 * Create a class.
		 * @param fraction the part of the limit it may use, in (0, 1]
		 */
		public Share(double fraction) {
			if (!(fraction > 0 && fraction <= 1)) {
				throw new IllegalArgumentException("A share must be above 0 and at most 1, got " + fraction);
			}
			this.fraction = fraction;
		}

		/**
		 * Return the calls of the class in flight.
		 * @return the count
		 */
		public int inFlight() {
			return this.inFlight.get();
		}

		boolean tryAcquire(int limit) {
			int allowed = Math.max(1, (int) (limit * this.fraction));
			for (;;) {
				int running = this.inFlight.get();
				if (running >= allowed) {
					return false;
				}
				if (this.inFlight.compareAndSet(running, running + 1)) {
					return true;
				}
			}
		}

		void release() {
			this.inFlight.decrementAndGet();
		}

	}

}
