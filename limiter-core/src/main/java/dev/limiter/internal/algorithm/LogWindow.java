package dev.limiter.internal.algorithm;

import dev.limiter.Limit;

/**
 * The sliding-window log: one timestamp per admitted permit.
 */
final class LogWindow extends Window {

	private final long period;

	private final LongRing log;

	LogWindow(Limit limit) {
		super(limit);
		this.period = limit.periodMicros();
		this.log = new LongRing((int) Math.min(limit.threshold(), 16));
	}

	@Override
	public void load(long now) {
		// the window is (now - period, now]: an entry at now - period has left it
		long horizon = now - this.period;
		int expired = 0;
		while (expired < this.log.size() && this.log.get(expired) <= horizon) {
			expired++;
		}
		this.log.removeFirst(expired);
		this.used = this.log.size();
	}

	@Override
	public void record(long now, long permits) {
		this.log.add(now, permits);
		if (this.log.size() > this.threshold) {
			this.log.removeFirst((int) (this.log.size() - this.threshold));
		}
		this.used = this.log.size();
	}

	@Override
	public long waitFor(long now, long permits) {
		long excess = this.used + permits - this.threshold;
		return this.log.get((int) excess - 1) + this.period - now;
	}

	@Override
	public long resetAfter(long now) {
		return (this.log.size() > 0) ? this.log.last() + this.period - now : 0;
	}

	@Override
	public void release(long now, long at, long permits) {
		this.log.remove(at, permits);
		this.used = this.log.size();
	}

	@Override
	public long expiresAt() {
		return (this.log.size() > 0) ? this.log.last() + this.period : 0;
	}

}
