package dev.limiter.internal.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.limiter.Decision;
import dev.limiter.call.RateLimitObserver;
import dev.limiter.call.RateLimitOperation;

/**
 * Makes each decision a Micrometer {@link Observation} named {@value #NAME}, with the
 * low-cardinality key values {@code limiter.limit} (the method's scope) and
 * {@code limiter.result} ({@code allowed}, {@code rejected}, or {@code error}): with
 * tracing, a span per decision; never the caller's key.
 */
public final class LimiterObservations implements RateLimitObserver {

	/** The name of the observations. */
	public static final String NAME = "limiter.decision";

	private final ObservationRegistry registry;

	/**
	 * Create the observer.
	 * @param registry the registry
	 */
	public LimiterObservations(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public Object start(RateLimitOperation operation) {
		return Observation.createNotStarted(NAME, this.registry)
			.contextualName("rate limit " + operation.getScope())
			.lowCardinalityKeyValue("limiter.limit", operation.getScope())
			.start();
	}

	@Override
	public void stop(Object started, Decision decision, Throwable failure) {
		Observation observation = (Observation) started;
		if (failure != null) {
			observation.lowCardinalityKeyValue("limiter.result", "error").error(failure);
		}
		else {
			observation.lowCardinalityKeyValue("limiter.result", decision.isAllowed() ? "allowed" : "rejected");
		}
		observation.stop();
	}

}
