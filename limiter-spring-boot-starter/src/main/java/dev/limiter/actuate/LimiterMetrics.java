package dev.limiter.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.aop.RateLimitDecisionListener;
import dev.limiter.aop.RateLimitOperation;
import dev.limiter.resilience.ResilientRateLimiter;

/**
 * Counts the limiter's decisions in Micrometer: {@value #DECISIONS} tagged {@code result}
 * ({@code allowed}, {@code rejected}, {@code shadow-rejected} for calls that a limit in
 * shadow mode would have rejected) and {@code degraded} ({@code true} when a failure
 * policy decided because Redis could not answer), and {@value #DEGRADED} tagged
 * {@code policy} ({@code fail-open}, {@code fail-closed}, {@code local}) and
 * {@code result}.
 * <p>
 * Every counter is registered up front, so that a decision costs an array index and an
 * increment, without a meter lookup.
 */
public final class LimiterMetrics implements RateLimitDecisionListener, ResilientRateLimiter.DegradedListener {

	/** The counter of the aspect's decisions. */
	public static final String DECISIONS = "limiter.decisions";

	/** The counter of decisions taken by a failure policy. */
	public static final String DEGRADED = "limiter.degraded";

	private static final FailurePolicy[] POLICIES = FailurePolicy.values();

	private final Counter[] decisions = new Counter[4];

	private final Counter shadowRejected;

	private final Counter[] degraded = new Counter[POLICIES.length * 2];

	/**
	 * Create the counters in a registry.
	 * @param registry the registry
	 */
	public LimiterMetrics(MeterRegistry registry) {
		if (registry == null) {
			throw new IllegalArgumentException("registry must not be null");
		}
		this.shadowRejected = Counter.builder(DECISIONS)
			.description("Rate-limit decisions")
			.tag("result", "shadow-rejected")
			.tag("degraded", "false")
			.register(registry);
		for (boolean allowed : new boolean[] { true, false }) {
			for (boolean isDegraded : new boolean[] { false, true }) {
				this.decisions[decisionIndex(allowed, isDegraded)] = Counter.builder(DECISIONS)
					.description("Rate-limit decisions")
					.tag("result", result(allowed))
					.tag("degraded", Boolean.toString(isDegraded))
					.register(registry);
			}
			for (FailurePolicy policy : POLICIES) {
				this.degraded[degradedIndex(policy, allowed)] = Counter.builder(DEGRADED)
					.description("Rate-limit decisions taken by a failure policy while Redis could not answer")
					.tag("policy", policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
					.tag("result", result(allowed))
					.register(registry);
			}
		}
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
		this.decisions[decisionIndex(decision.isAllowed(), decision.isDegraded())].increment();
	}

	/**
	 * Count a shadowed rejection as {@code shadow-rejected}, and a shadowed admission as
	 * an admission when the operation has no enforced limit that counted the call.
	 */
	@Override
	public void onShadowDecision(RateLimitOperation operation, Decision decision) {
		if (!decision.isAllowed()) {
			this.shadowRejected.increment();
		}
		else if (operation.getEnforcedLimits().isEmpty()) {
			onDecision(operation, decision);
		}
	}

	@Override
	public void degraded(Decision decision, FailurePolicy policy) {
		this.degraded[degradedIndex(policy, decision.isAllowed())].increment();
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

}
