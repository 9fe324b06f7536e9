package dev.limiter;

import java.util.ArrayList;
import java.util.List;

/**
 * Replays decisions in the order they were taken and checks them against the definition:
 * no window (t - W, t] holds more than N admitted permits, and no call is rejected while
 * admitting it would have kept every window within N.
 */
public final class SlidingWindowOracle {

	private final Limit limit;

	private final List<long[]> admittedPermits = new ArrayList<>();

	private final List<String> violations = new ArrayList<>();

	private long admitted;

	public SlidingWindowOracle(Limit limit) {
		this.limit = limit;
	}

	/**
	 * Check one decision, taken at {@code time}, after all earlier ones.
	 * @param time the store's time of the decision, in microseconds
	 * @param permits the permits asked for
	 * @param allowed whether they were admitted
	 */
	public void check(long time, long permits, boolean allowed) {
		long inWindow = inWindow(time);
		if (allowed && inWindow + permits > this.limit.threshold()) {
			this.violations.add("admitted " + permits + " at " + time + " with " + inWindow + " in the window");
		}
		if (!allowed && inWindow + permits <= this.limit.threshold()) {
			this.violations.add("rejected " + permits + " at " + time + " with only " + inWindow + " in the window");
		}
		if (allowed) {
			this.admittedPermits.add(new long[] { time, permits });
			this.admitted += permits;
		}
	}

	private long inWindow(long time) {
		long count = 0;
		for (int i = this.admittedPermits.size() - 1; i >= 0; i--) {
			long[] entry = this.admittedPermits.get(i);
			if (entry[0] <= time - this.limit.periodMicros()) {
				break;
			}
			count += entry[1];
		}
		return count;
	}

	public long admitted() {
		return this.admitted;
	}

	public List<String> violations() {
		return this.violations;
	}

}
