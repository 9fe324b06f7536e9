package dev.limiter.internal.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A small circuit breaker in front of the store: after {@code failureThreshold}
 * consecutive failures (a store that still answers, late, is not failing:
 * {@link StillAnswering}) it opens and calls stop paying the store's timeout; after
 * {@code openDuration} it lets one probe through, and closes again when the probe
 * succeeds.
 * <p>
 * Written here rather than taken from Resilience4j: the limiter needs three states, one
 * probe and two callbacks on the hot path of every request, and a dependency for that
 * would weigh more than the code.
 */
public final class CircuitBreaker {

	/**
	 * The states of the breaker.
	 */
	public enum State {

		/** The store is used. */
		CLOSED,

		/** The store is skipped until the open duration has passed. */
		OPEN,

		/** One probe call is on its way to the store. */
		HALF_OPEN

	}

	/**
	 * A failure of a store that is still answering, only later than a call could wait
	 * (answers to earlier calls kept coming meanwhile): the call takes its failure
	 * policy, but a closed breaker does not count it towards opening, since a busy store
	 * is not an absent one.
	 */
	public interface StillAnswering {

	}

	/**
	 * Told when the breaker opens and closes, once per outage.
	 */
	public interface Listener {

		/**
		 * Called when the breaker opens.
		 * @param cause the failure that opened it
		 */
		default void opened(Throwable cause) {
		}

		/**
		 * Called when the breaker closes after an outage.
		 * @param outage how long the breaker was not closed
		 */
		default void closed(Duration outage) {
		}

	}

	private final int failureThreshold;

	private final long openNanos;

	private final LongSupplier nanoTime;

	private final Listener listener;

	private final AtomicInteger consecutiveFailures = new AtomicInteger();

	private final AtomicBoolean probing = new AtomicBoolean();

	private volatile State state = State.CLOSED;

	private volatile long openedAt;

	private volatile long outageStartedAt;

	private volatile Throwable lastFailure;

	/**
	 * Create a breaker.
	 * @param failureThreshold consecutive failures that open it, at least 1
	 * @param openDuration how long it stays open before a probe
	 * @param nanoTime the time source, {@code System::nanoTime} outside tests
	 * @param listener told of openings and closings
	 */
	public CircuitBreaker(int failureThreshold, Duration openDuration, LongSupplier nanoTime, Listener listener) {
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
		}
		if (openDuration == null || openDuration.isNegative()) {
			throw new IllegalArgumentException("openDuration must not be null or negative, was " + openDuration);
		}
		this.failureThreshold = failureThreshold;
		this.openNanos = openDuration.toNanos();
		this.nanoTime = nanoTime;
		this.listener = (listener != null) ? listener : new Listener() {
		};
	}

	/**
	 * Return whether a call may go to the store now.
	 * @return {@code true} when closed, or for the one probe after the open duration
	 */
	public boolean tryAcquire() {
		State current = this.state;
		if (current == State.CLOSED) {
			return true;
		}
		if (current == State.OPEN && this.nanoTime.getAsLong() - this.openedAt >= this.openNanos
				&& this.probing.compareAndSet(false, true)) {
			this.state = State.HALF_OPEN;
			return true;
		}
		return false;
	}

	/**
	 * Record a call that the store answered.
	 */
	public void onSuccess() {
		this.consecutiveFailures.set(0);
		if (this.lastFailure != null) {
			this.lastFailure = null;
		}
		if (this.state != State.CLOSED) {
			synchronized (this) {
				if (this.state != State.CLOSED) {
					this.state = State.CLOSED;
					this.probing.set(false);
					this.listener.closed(Duration.ofNanos(this.nanoTime.getAsLong() - this.outageStartedAt));
				}
			}
		}
	}

	/**
	 * Record a call that the store failed or did not answer in time.
	 * @param cause the failure
	 */
	public void onFailure(Throwable cause) {
		this.lastFailure = cause;
		State current = this.state;
		if (current == State.CLOSED && cause instanceof StillAnswering) {
			return;
		}
		int failures = this.consecutiveFailures.incrementAndGet();
		if (current == State.HALF_OPEN || (current == State.CLOSED && failures >= this.failureThreshold)) {
			synchronized (this) {
				State now = this.state;
				if (now == State.OPEN) {
					return;
				}
				this.openedAt = this.nanoTime.getAsLong();
				this.probing.set(false);
				this.state = State.OPEN;
				if (now == State.CLOSED) {
					this.outageStartedAt = this.openedAt;
					this.listener.opened(cause);
				}
			}
		}
	}

	public State state() {
		return this.state;
	}

	/**
	 * Return the store's latest failure since it last answered.
	 * @return the failure, or {@code null} when the latest call was answered
	 */
	public Throwable lastFailure() {
		return this.lastFailure;
	}

	/**
	 * Return how long until the breaker lets a probe through.
	 * @return the time left open; zero when not open
	 */
	public Duration remainingOpen() {
		if (this.state != State.OPEN) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.openNanos - (this.nanoTime.getAsLong() - this.openedAt)));
	}

}
