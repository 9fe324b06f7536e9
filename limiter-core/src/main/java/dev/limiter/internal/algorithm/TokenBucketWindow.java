package dev.limiter.internal.algorithm;

import dev.limiter.Limit;

/**
 * The token bucket as GCRA: one theoretical arrival time, the moment the bucket is full
 * again. Each permit moves it one refill interval later; a call fits while it stays
 * within a full bucket's worth of intervals from now.
 */
final class TokenBucketWindow extends Window {

	private long refill;

	private long arrival;

	TokenBucketWindow(Limit limit) {
		super(limit);
		this.refill = limit.refillMicros();
	}

	@Override
	public void retarget(Limit limit, long now) {
		super.retarget(limit, now);
		long refill = limit.refillMicros();
		if (refill != this.refill && this.arrival > now) {
			// the permits taken still count, refilled at the new rate: the twin of the
			// fragment's conversion (once, on the first call that brings the new
			// interval), rounded up so that a change never adds room
			this.arrival = now + (long) Math.ceil((double) (this.arrival - now) / this.refill * refill);
		}
		this.refill = refill;
	}

	@Override
	public void load(long now) {
		this.arrival = Math.max(this.arrival, now);
		this.used = ceilDiv(this.arrival - now, this.refill);
	}

	@Override
	public void record(long now, long permits) {
		// a rejected call that counts leaves the bucket empty, never emptier
		this.arrival = Math.min(this.arrival + permits * this.refill, now + this.threshold * this.refill);
		this.used = ceilDiv(this.arrival - now, this.refill);
	}

	@Override
	public void charge(long now, long permits) {
		this.arrival += permits * this.refill;
		this.used = ceilDiv(this.arrival - now, this.refill);
	}

	@Override
	public long waitFor(long now, long permits) {
		return this.arrival + (permits - this.threshold) * this.refill - now;
	}

	@Override
	public long resetAfter(long now) {
		return this.arrival - now;
	}

	@Override
	public void release(long now, long at, long permits) {
		this.arrival = Math.max(now, this.arrival - permits * this.refill);
		this.used = ceilDiv(this.arrival - now, this.refill);
	}

	@Override
	public long expiresAt() {
		return this.arrival;
	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

}
