package dev.limiter.internal.algorithm;

import dev.limiter.Limit;

/**
 * Calendar windows in memory: the permits counted since the start of the current window,
 * all forgotten at its end.
 */
final class CalendarWindow extends Window {

	private final Limit limit;

	private long start = Long.MIN_VALUE;

	private long end = Long.MIN_VALUE;

	CalendarWindow(Limit limit) {
		super(limit);
		this.limit = limit;
	}

	@Override
	public void load(long now) {
		if (now >= this.end || now < this.start) {
			long[] boundaries = CalendarWindows.around(this.limit, now);
			if (boundaries[1] != this.start) {
				this.used = 0;
			}
			this.start = boundaries[1];
			this.end = boundaries[2];
		}
	}

	@Override
	public void record(long now, long permits) {
		// a rejected call that counts fills the window, never more
		this.used = Math.min(this.used + permits, Math.max(this.threshold, this.used));
	}

	@Override
	public void charge(long now, long permits) {
		this.used += permits;
	}

	@Override
	public long waitFor(long now, long permits) {
		return this.end - now;
	}

	@Override
	public long resetAfter(long now) {
		return (this.used > 0) ? this.end - now : 0;
	}

	@Override
	public void release(long now, long at, long permits) {
		if (at >= this.start && at < this.end) {
			this.used = Math.max(0, this.used - permits);
		}
	}

	@Override
	public long expiresAt() {
		return (this.used > 0) ? this.end : 0;
	}

}
