package dev.limiter.internal.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.limiter.Decision;
import dev.limiter.internal.adaptive.AdaptiveLimit;
import dev.limiter.FailurePolicy;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.resilience.ResilientRateLimiter;

/**
 * Counts the limiter's decisions in Micrometer: {@value #DECISIONS} tagged {@code limit}
 * (the rate-limited method's scope, such as {@code n:search}: bounded by the number of
 * methods, never the caller), {@code result} ({@code allowed}, {@code rejected},
 * {@code shadow-rejected} for calls that a limit in shadow mode would have rejected) and
 * {@code degraded} ({@code true} when a failure policy decided because Redis could not
 * answer); {@value #DURATION} times the decisions per {@code limit}; and
 * {@value #DEGRADED} is tagged {@code policy} ({@code fail-open}, {@code fail-closed},
 * {@code local}) and {@code result}.
 * <p>
 * The meters of a method are registered with its first decision and then found by the
 * operation itself, so that a decision costs a map read, an array index and an increment.
 */
public final class LimiterMetrics implements RateLimitDecisionListener, ResilientRateLimiter.DegradedListener {

	/** The counter of the aspect's decisions. */
	public static final String DECISIONS = "limiter.decisions";

	/** The gauge of the calls running on this instance under each in-flight limit. */
	public static final String CALLS_IN_FLIGHT = "limiter.calls.in.flight";

	/** The gauge of the number an adaptive limit has learned, per limit. */
	public static final String ADAPTIVE_LIMIT = "limiter.adaptive.limit";

	/** The timer of the aspect's decisions. */
	public static final String DURATION = "limiter.decision.duration";

	/** The counter of decisions taken by a failure policy. */
	public static final String DEGRADED = "limiter.degraded";

	private static final FailurePolicy[] POLICIES = FailurePolicy.values();

	private static final int SHADOW_REJECTED = 4;

	private final MeterRegistry registry;

	private final Map<RateLimitOperation, Meters> meters = new ConcurrentHashMap<>();

	private final Counter[] degraded = new Counter[POLICIES.length * 2];

	/**
	 * Create the counters in a registry.
	 * @param registry the registry
	 */
	public LimiterMetrics(MeterRegistry registry) {
		if (registry == null) {
			throw new IllegalArgumentException("registry must not be null");
		}
		this.registry = registry;
		for (boolean allowed : new boolean[] { true, false }) {
			for (FailurePolicy policy : POLICIES) {
				this.degraded[degradedIndex(policy, allowed)] = Counter.builder(DEGRADED)
					.description("Rate-limit decisions taken by a failure policy while Redis could not answer")
					.tag("policy", policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
					.tag("result", result(allowed))
					.register(registry);
			}
		}
	}

	/**
	 * Register the gauge of the calls running on this instance under an in-flight limit.
	 * @param limit the limit's name
	 * @param count its count of calls in flight
	 */
	public void watchCallsInFlight(String limit, IntSupplier count) {
		Gauge.builder(CALLS_IN_FLIGHT, count, IntSupplier::getAsInt)
			.description("Calls running on this instance under an in-flight limit")
			.tag("limit", limit)
			// the count is held by nothing else: a weak reference would read NaN after a
			// GC
			.strongReference(true)
			.register(this.registry);
	}

	/**
	 * Register the gauges of an adaptive limit on this instance: the number it has
	 * learned, and its calls in flight.
	 * @param limit the limit's name
	 * @param learned the limit
	 */
	public void watchAdaptive(String limit, AdaptiveLimit learned) {
		Gauge.builder(ADAPTIVE_LIMIT, learned, AdaptiveLimit::limit)
			.description("Calls in flight an adaptive limit admits on this instance, as learned so far")
			.tag("limit", limit)
			.strongReference(true)
			.register(this.registry);
		watchCallsInFlight(limit, learned::inFlight);
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
		meters(operation).decisions[decisionIndex(decision.isAllowed(), decision.isDegraded())].increment();
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision, long nanos) {
		Meters meters = meters(operation);
		meters.decisions[decisionIndex(decision.isAllowed(), decision.isDegraded())].increment();
		meters.duration.record(nanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Count a shadowed rejection as {@code shadow-rejected}, and a shadowed admission as
	 * an admission when the operation has no enforced limit that counted the call.
	 */
	@Override
	public void onShadowDecision(RateLimitOperation operation, Decision decision) {
		if (!decision.isAllowed()) {
			meters(operation).decisions[SHADOW_REJECTED].increment();
		}
		else if (operation.getEnforcedLimits().isEmpty()) {
			onDecision(operation, decision);
		}
	}

	@Override
	public void degraded(Decision decision, FailurePolicy policy) {
		this.degraded[degradedIndex(policy, decision.isAllowed())].increment();
	}

	private Meters meters(RateLimitOperation operation) {
		Meters meters = this.meters.get(operation);
		return (meters != null) ? meters : this.meters.computeIfAbsent(operation, this::register);
	}

	private Meters register(RateLimitOperation operation) {
		String limit = operation.getScope();
		Counter[] decisions = new Counter[5];
		for (boolean allowed : new boolean[] { true, false }) {
			for (boolean isDegraded : new boolean[] { false, true }) {
				decisions[decisionIndex(allowed, isDegraded)] = counter(limit, result(allowed), isDegraded);
			}
		}
		decisions[SHADOW_REJECTED] = counter(limit, "shadow-rejected", false);
		Timer duration = Timer.builder(DURATION)
			.description("Time the rate-limit decisions took, the store's answer included")
			.tag("limit", limit)
			.register(this.registry);
		return new Meters(decisions, duration);
	}

	private Counter counter(String limit, String result, boolean degraded) {
		return Counter.builder(DECISIONS)
			.description("Rate-limit decisions")
			.tag("limit", limit)
			.tag("result", result)
			.tag("degraded", Boolean.toString(degraded))
			.register(this.registry);
	}

	private static int decisionIndex(boolean allowed, boolean degraded) {
		return (allowed ? 0 : 2) + (degraded ? 1 : 0);
	}

	private static int degradedIndex(FailurePolicy policy, boolean allowed) {
		return policy.ordinal() * 2 + (allowed ? 0 : 1);
	}

	private static String result(boolean allowed) {
		return allowed ? "allowed" : "rejected";
	}

	private record Meters(Counter[] decisions, Timer duration) {
	}

}
