package dev.limiter.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.aop.RateLimitOperation;
import dev.limiter.aop.RateLimitOperationSource;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.store.RateLimitResets;

/**
 * The {@code ratelimits} Actuator endpoint: every limit the application enforces, the
 * usage of one caller under one of them, and a reset of that caller's quota on every
 * instance.
 * <p>
 * A rate-limited method is addressed by its scope, the first part of its keys:
 * {@code n:<name>} when its limits share a name, otherwise {@code m:<class>.<method>}. A
 * caller is the rest of the key: {@code u:<user>} or {@code ip:<address>} for the default
 * key, or the value of a SpEL key.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

	private final RateLimitOperationSource operations;

	private final RateLimiter rateLimiter;

	private final LimitResolver limits;

	private final FailurePolicy defaultPolicy;

	private final RateLimitResets resets;

	/**
	 * Create the endpoint.
	 * @param operations the rate-limited methods
	 * @param rateLimiter the limiter that counts them
	 * @param limits the limit model, which says where each limit's numbers come from
	 * @param defaultPolicy the failure policy of limits that choose none
	 * ({@code limiter.failure.policy})
	 * @param resets tells the other instances of a reset, or {@code null} with a store
	 * that only this instance sees
	 */
	public RateLimitsEndpoint(RateLimitOperationSource operations, RateLimiter rateLimiter, LimitResolver limits,
			FailurePolicy defaultPolicy, RateLimitResets resets) {
		this.operations = operations;
		this.rateLimiter = rateLimiter;
		this.limits = limits;
		this.defaultPolicy = defaultPolicy;
		this.resets = resets;
	}

	/**
	 * List every rate-limited method and its limits.
	 * @return the limits, by scope
	 */
	@ReadOperation
	public Map<String, Object> limits() {
		Map<String, Object> limits = new java.util.TreeMap<>();
		for (RateLimitOperation operation : this.operations.getOperations()) {
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("method", operation.getDescription());
			described.put("key", operation.getKeySource().isEmpty() ? "default" : operation.getKeySource());
			described.put("permits", operation.getPermits());
			List<Object> limitList = new ArrayList<>();
			for (Limit limit : operation.getLimits()) {
				limitList.add(describe(operation, limit));
			}
			described.put("limits", limitList);
			limits.put(operation.getScope(), described);
		}
		return Map.of("limits", limits);
	}

	/**
	 * Read the usage of one caller under a rate-limited method's limits, without counting
	 * anything.
	 * @param name the method's scope, such as {@code n:search}
	 * @param key the caller, such as {@code u:alice}
	 * @return the usage (under each plan too, when the method has plans), or {@code null}
	 * (404) when no method has that scope
	 */
	@ReadOperation
	public Map<String, Object> usage(@Selector String name, String key) {
		RateLimitOperation operation = operation(name);
		if (operation == null) {
			return null;
		}
		String fullKey = operation.key(key);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("key", fullKey);
		result.put("limits", usage(fullKey, operation));
		if (!operation.getPlans().isEmpty()) {
			Map<String, Object> plans = new LinkedHashMap<>();
			operation.getPlans().forEach((plan, planned) -> plans.put(plan, usage(fullKey, planned)));
			result.put("plans", plans);
		}
		return result;
	}

	/**
	 * Reset one caller's quota under a rate-limited method's limits, under every plan, on
	 * every instance.
	 * @param name the method's scope, such as {@code n:search}
	 * @param key the caller, such as {@code u:alice}
	 * @return the reset key, or {@code null} (404) when no method has that scope
	 */
	@DeleteOperation
	public Map<String, Object> reset(@Selector String name, String key) {
		RateLimitOperation operation = operation(name);
		if (operation == null) {
			return null;
		}
		String fullKey = operation.key(key);
		this.rateLimiter.reset(fullKey, operation.getLimits());
		for (RateLimitOperation planned : operation.getPlans().values()) {
			this.rateLimiter.reset(fullKey, planned.getLimits());
		}
		if (this.resets != null) {
			this.resets.published(fullKey);
		}
		return Map.of("reset", fullKey);
	}

	private List<Object> usage(String fullKey, RateLimitOperation operation) {
		List<Object> usage = new ArrayList<>();
		for (Usage used : this.rateLimiter.usage(fullKey, operation.getLimits())) {
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("name", used.limit().name());
			row.put("threshold", used.limit().threshold());
			row.put("period", used.limit().periodText());
			row.put("used", used.used());
			row.put("remaining", used.remaining());
			row.put("resetAfterMillis", used.resetAfter().toMillis());
			if (used.currentSlice() >= 0) {
				row.put("currentSlice", used.currentSlice());
			}
			usage.add(row);
		}
		return usage;
	}

	private RateLimitOperation operation(String scope) {
		for (RateLimitOperation operation : this.operations.getOperations()) {
			if (operation.getScope().equals(scope)) {
				return operation;
			}
		}
		return null;
	}

	private Map<String, Object> describe(RateLimitOperation operation, Limit limit) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("name", limit.name());
		described.put("threshold", limit.threshold());
		described.put("period", limit.periodText());
		described.put("algorithm", limit.algorithm().text());
		if (limit.algorithm() == Algorithm.SLIDING_BUCKETS) {
			described.put("slices", limit.slices());
		}
		FailurePolicy policy = (limit.failurePolicy() != null) ? limit.failurePolicy() : this.defaultPolicy;
		described.put("failurePolicy", policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
		described.put("shadow", operation.isShadow(limit));
		LimitAttributes configured = this.limits.named().get(limit.name());
		boolean fromConfiguration = configured != null
				&& (configured.threshold() != null || configured.period() != null);
		described.put("source", fromConfiguration ? "limiter.limits." + limit.name() : "annotation");
		return described;
	}

}
