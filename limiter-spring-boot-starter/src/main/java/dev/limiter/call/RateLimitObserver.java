package dev.limiter.call;

import dev.limiter.Decision;

/**
 * Observes each decision from its start to its answer, such as a Micrometer
 * {@code Observation} that becomes a span with the limit and the result (never the key).
 */
public interface RateLimitObserver {

	/**
	 * Called when a decision starts.
	 * @param operation the operation being decided
	 * @return what {@link #stop} receives, such as the started observation
	 */
	Object start(RateLimitOperation operation);

	/**
	 * Called when the decision is known, or failed.
	 * @param started what {@link #start} returned
	 * @param decision the decision, or {@code null} when it failed
	 * @param failure the failure, or {@code null}
	 */
	void stop(Object started, Decision decision, Throwable failure);

	/** An observer that observes nothing. */
	RateLimitObserver NONE = new RateLimitObserver() {

		@Override
		public Object start(RateLimitOperation operation) {
			return null;
		}

		@Override
		public void stop(Object started, Decision decision, Throwable failure) {
		}

	};

}
