package dev.limiter.internal.retry;

/**
 * A retry budget's arithmetic, the same as the shared script's
 * ({@link RedisRetryBudgets}): counts per second over the last {@link #WINDOW_SECONDS}
 * seconds of first attempts (deposits) and of the retries they paid for, and of this
 * second's retries paid by {@code min-per-second}. A retry is paid by the ratio when the
 * retries it paid for in the window, this one included, stay within {@code ratio} times
 * the window's deposits; otherwise by this second's allowance; otherwise it is denied.
 * <p>
 * Held in memory, it is each instance's own budget while Redis cannot answer.
 */
public final class RetryWindow {

	/** How long a first attempt pays for retries. */
	public static final int WINDOW_SECONDS = 10;

	private final double ratio;

	private final long minPerSecond;

	private final long[] seconds = new long[WINDOW_SECONDS];

	private final long[] deposits = new long[WINDOW_SECONDS];

	private final long[] byRatio = new long[WINDOW_SECONDS];

	private final long[] byMinimum = new long[WINDOW_SECONDS];

	/**
	 * Create an empty window.
	 * @param ratio the part of the first attempts that retries may add
	 * @param minPerSecond the retries a second allowed beyond the ratio
	 */
	public RetryWindow(double ratio, long minPerSecond) {
		this.ratio = ratio;
		this.minPerSecond = minPerSecond;
		java.util.Arrays.fill(this.seconds, Long.MIN_VALUE);
	}

	/**
	 * Add first attempts and, when asked, take one retry, at a time.
	 * @param nowMillis the time, in milliseconds since the epoch
	 * @param firstAttempts the first attempts to add
	 * @param retry whether a retry is asked for
	 * @return the outcome and the window's counts after it
	 */
	public synchronized Outcome apply(long nowMillis, long firstAttempts, boolean retry) {
		long second = Math.floorDiv(nowMillis, 1000);
		int slot = (int) Math.floorMod(second, WINDOW_SECONDS);
		if (this.seconds[slot] != second) {
			this.seconds[slot] = second;
			this.deposits[slot] = 0;
			this.byRatio[slot] = 0;
			this.byMinimum[slot] = 0;
		}
		this.deposits[slot] += firstAttempts;
		long deposited = 0;
		long paidByRatio = 0;
		for (int i = 0; i < WINDOW_SECONDS; i++) {
			if (this.seconds[i] > second - WINDOW_SECONDS && this.seconds[i] <= second) {
				deposited += this.deposits[i];
				paidByRatio += this.byRatio[i];
			}
		}
		int paid = 0;
		if (retry) {
			if (paidByRatio + 1 <= this.ratio * deposited) {
				this.byRatio[slot]++;
				paidByRatio++;
				paid = Outcome.BY_RATIO;
			}
			else if (this.byMinimum[slot] < this.minPerSecond) {
				this.byMinimum[slot]++;
				paid = Outcome.BY_MINIMUM;
			}
		}
		return new Outcome(paid, deposited, paidByRatio, this.byMinimum[slot]);
	}

	/**
	 * What a budget said, and its counts after it.
	 *
	 * @param paid {@code 0} when no retry was asked for or it was denied,
	 * {@link #BY_RATIO} or {@link #BY_MINIMUM} for an allowed one
	 * @param firstAttempts the first attempts of the window
	 * @param retriesByRatio the retries the window's first attempts paid for
	 * @param retriesByMinimum the retries this second's allowance paid for
	 */
	public record Outcome(int paid, long firstAttempts, long retriesByRatio, long retriesByMinimum) {

		/** A retry the first attempts paid for. */
		public static final int BY_RATIO = 1;

		/** A retry this second's allowance paid for. */
		public static final int BY_MINIMUM = 2;

		/**
		 * Return whether the retry asked for may be made.
		 * @return whether it was paid for
		 */
		public boolean allowed() {
			return this.paid != 0;
		}

		/**
		 * Return how many more retries the budget allows now.
		 * @param ratio the budget's ratio
		 * @param minPerSecond the budget's retries a second
		 * @return the retries left
		 */
		public long balance(double ratio, long minPerSecond) {
			long byRatio = Math.max(0, (long) Math.floor(ratio * this.firstAttempts) - this.retriesByRatio);
			return byRatio + Math.max(0, minPerSecond - this.retriesByMinimum);
		}

	}

}
