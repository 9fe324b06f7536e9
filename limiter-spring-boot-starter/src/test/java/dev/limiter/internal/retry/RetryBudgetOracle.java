package dev.limiter.internal.retry;

import java.util.ArrayList;
import java.util.List;

/**
 * A retry budget's promise, recomputed from every event so far rather than from counts
 * kept per second: a retry is allowed when the retries the first attempts of the last ten
 * seconds paid for, this one included, stay within the ratio of those first attempts, or
 * else when this second's allowance has room; denied otherwise.
 */
final class RetryBudgetOracle {

	private final double ratio;

	private final long minPerSecond;

	private final List<long[]> events = new ArrayList<>();

	RetryBudgetOracle(double ratio, long minPerSecond) {
		this.ratio = ratio;
		this.minPerSecond = minPerSecond;
	}

	/**
	 * The outcome the promise gives, recorded.
	 * @return 0 denied or no retry asked, 1 paid by the ratio, 2 by the second's
	 * allowance
	 */
	int apply(long nowMillis, long firstAttempts, boolean retry) {
		long second = Math.floorDiv(nowMillis, 1000);
		this.events.add(new long[] { second, 0, firstAttempts });
		if (!retry) {
			return 0;
		}
		long deposited = 0;
		long byRatio = 0;
		long byMinimum = 0;
		for (long[] event : this.events) {
			boolean inWindow = event[0] > second - RetryWindow.WINDOW_SECONDS && event[0] <= second;
			if (inWindow && event[1] == 0) {
				deposited += event[2];
			}
			else if (inWindow && event[1] == 1) {
				byRatio++;
			}
			else if (event[1] == 2 && event[0] == second) {
				byMinimum++;
			}
		}
		int paid = (byRatio + 1 <= this.ratio * deposited) ? 1 : (byMinimum < this.minPerSecond) ? 2 : 0;
		if (paid != 0) {
			this.events.add(new long[] { second, paid, 1 });
		}
		return paid;
	}

	long firstAttempts() {
		return this.events.stream().filter((event) -> event[1] == 0).mapToLong((event) -> event[2]).sum();
	}

	long retries(int paid) {
		return this.events.stream().filter((event) -> event[1] == paid).count();
	}

	long seconds() {
		return this.events.stream().mapToLong((event) -> event[0]).distinct().count();
	}

}
