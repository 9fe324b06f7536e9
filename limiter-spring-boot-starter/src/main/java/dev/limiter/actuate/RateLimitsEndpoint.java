package dev.limiter.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.lang.Nullable;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.store.RateLimitResets;

/**
 * The {@code ratelimits} Actuator endpoint: every limit the application enforces, the
 * usage of one caller under one of them, and a reset of that caller's quota on every
 * instance.
 * <p>
 * A limit is addressed by its name ({@code /actuator/ratelimits/search}), or by the scope
 * of its method, the first part of its keys: {@code n:<name>} when its limits share a
 * name, otherwise {@code m:<class>.<method>}. A name or scope that no limit has is a 404
 * for reads and resets alike. A caller is the rest of the key: {@code u:<user>} or
 * {@code ip:<address>} for the default key, or the value of a SpEL key.
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
	RateLimitsEndpoint(RateLimitOperationSource operations, RateLimiter rateLimiter, LimitResolver limits,
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
		for (AnnotatedOperation operation : this.operations.getOperations()) {
			limits.put(operation.getScope(), describe(operation));
		}
		return Map.of("limits", limits);
	}

	/**
	 * Read the usage of one caller under a limit, without counting anything, or describe
	 * the limit when no caller is given.
	 * @param name the limit's name, such as {@code search}, or the scope of an unnamed
	 * limit, such as {@code m:com.example.Mailer.send}
	 * @param key the caller, such as {@code u:alice}, or {@code null} to describe the
	 * limit
	 * @return the usage (under each plan too, when the limit has plans), the description,
	 * or {@code null} (404) when no limit has that name or scope
	 */
	// Spring's @Nullable, which Actuator reads on Boot 3.5 and 4.x alike, makes the key
	// optional.
	@ReadOperation
	@SuppressWarnings("deprecation")
	public Map<String, Object> usage(@Selector String name, @Nullable String key) {
		AnnotatedOperation operation = operation(name);
		if (operation == null) {
			return null;
		}
		if (key == null) {
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("scope", operation.getScope());
			described.putAll(describe(operation));
			return described;
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
	 * Reset one caller's quota under a limit, under every plan, on every instance.
	 * @param name the limit's name, such as {@code search}, or the scope of an unnamed
	 * limit, such as {@code m:com.example.Mailer.send}
	 * @param key the caller, such as {@code u:alice}
	 * @return the reset key, or a 404 when no limit has that name or scope: an operator's
	 * typo must never look like a reset
	 */
	@DeleteOperation
	public Object reset(@Selector String name, String key) {
		AnnotatedOperation operation = operation(name);
		if (operation == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		String fullKey = operation.key(key);
		this.rateLimiter.reset(fullKey, operation.getLimits());
		for (AnnotatedOperation planned : operation.getPlans().values()) {
			this.rateLimiter.reset(fullKey, planned.getLimits());
		}
		if (this.resets != null) {
			this.resets.published(fullKey);
		}
		return Map.of("reset", fullKey);
	}

	private List<Object> usage(String fullKey, AnnotatedOperation operation) {
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

	/**
	 * Return the operation of a scope, or of a limit's name: the methods that share the
	 * name ({@code n:<name>}), else the one method whose limits carry it.
	 */
	private AnnotatedOperation operation(String nameOrScope) {
		String named = LimitResolver.scope(List.of(nameOrScope), nameOrScope);
		AnnotatedOperation carrying = null;
		int carriers = 0;
		for (AnnotatedOperation operation : this.operations.getOperations()) {
			if (operation.getScope().equals(nameOrScope) || operation.getScope().equals(named)) {
				return operation;
			}
			if (operation.getLimits().stream().anyMatch((limit) -> limit.name().equals(nameOrScope))) {
				carrying = operation;
				carriers++;
			}
		}
		return (carriers == 1) ? carrying : null;
	}

	private Map<String, Object> describe(AnnotatedOperation operation) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("method", operation.getDescription());
		described.put("key", operation.getKeySource().isEmpty() ? "default" : operation.getKeySource());
		described.put("permits", operation.getPermits());
		List<Object> limitList = new ArrayList<>();
		for (Limit limit : operation.getLimits()) {
			limitList.add(describe(operation, limit));
		}
		described.put("limits", limitList);
		return described;
	}

	private Map<String, Object> describe(AnnotatedOperation operation, Limit limit) {
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
