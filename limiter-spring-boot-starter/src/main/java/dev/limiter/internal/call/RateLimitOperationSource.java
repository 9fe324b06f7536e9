package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;

import dev.limiter.Limit;
import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.internal.limits.LimitOverrides.Numbers;
import dev.limiter.internal.limits.LimitOverrides;

/**
 * The registry of rate-limited methods: builds each method's {@link AnnotatedOperation}
 * once with a {@link RateLimitAnnotationParser}, so that the hot path only looks it up,
 * and lists every operation it knows.
 */
public class RateLimitOperationSource {

	private static final Object NONE = new Object();

	private final RateLimitAnnotationParser parser;

	// By method and class: a method inherited by two classes counts apart for each.
	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(64);

	// By description, route 'id': a route built again replaces its operation.
	private final Map<String, AnnotatedOperation> routes = new ConcurrentHashMap<>();

	/**
	 * Create a source.
	 * @param parser the parser of the annotations
	 */
	public RateLimitOperationSource(RateLimitAnnotationParser parser) {
		if (parser == null) {
			throw new IllegalArgumentException("parser must not be null");
		}
		this.parser = parser;
	}

	/**
	 * Return the numbers set at run time over the operations' limits.
	 * @return the overrides
	 */
	LimitOverrides getOverrides() {
		return this.parser.overrides();
	}

	/**
	 * Return the operation of a method, building and checking it on the first call.
	 * @param method the invoked method
	 * @param targetClass the class of the target object, or {@code null}
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	public AnnotatedOperation getOperation(Method method, Class<?> targetClass) {
		Method specific = ClassUtils.getMostSpecificMethod(method, targetClass);
		Class<?> userClass = (targetClass != null) ? ClassUtils.getUserClass(targetClass)
				: specific.getDeclaringClass();
		MethodClassKey key = new MethodClassKey(specific, userClass);
		Object cached = this.cache.get(key);
		if (cached == null) {
			AnnotatedOperation operation = this.parser.parse(specific, userClass);
			cached = (operation != null) ? operation : NONE;
			this.cache.put(key, cached);
		}
		return (cached != NONE) ? (AnnotatedOperation) cached : null;
	}

	/**
	 * Register the operation of a gateway route, replacing an earlier one of the same
	 * route, so that it is listed, read, reset and overridden as methods are.
	 * @param route the route's operation
	 */
	void register(AnnotatedOperation route) {
		this.routes.put(route.getDescription(), route);
	}

	/**
	 * Remove an operation registered by name, such as a rule that a refresh removed.
	 * @param description the operation's description
	 */
	void unregister(String description) {
		this.routes.remove(description);
	}

	/**
	 * Return every operation built so far (every rate-limited bean method once the
	 * application has started, as startup validation builds them, and every gateway route
	 * that uses Limiter).
	 * @return the operations
	 */
	public Collection<AnnotatedOperation> getOperations() {
		List<AnnotatedOperation> operations = new ArrayList<>();
		for (Object cached : this.cache.values()) {
			if (cached != NONE) {
				operations.add((AnnotatedOperation) cached);
			}
		}
		operations.addAll(this.routes.values());
		return operations;
	}

	/**
	 * Check numbers meant for every limit of a name, under every plan, as the
	 * configuration's are checked: in range, and enough for the permits one call takes.
	 * @param name the limits' name
	 * @param numbers the numbers of calls under no plan
	 * @param planNumbers the numbers of calls under a plan, by plan name
	 * @throws IllegalArgumentException naming the field to fix: {@code threshold},
	 * {@code period}, or {@code plans.<plan>.} either
	 */
	public void checkNumbers(String name, Numbers numbers, Map<String, Numbers> planNumbers) {
		for (AnnotatedOperation operation : getOperations()) {
			check(name, operation, numbers, "");
			operation.getPlans()
				.forEach((plan, planned) -> check(name, planned, planNumbers.getOrDefault(plan, Numbers.NONE),
						"plans." + plan + "."));
		}
	}

	private static void check(String name, AnnotatedOperation operation, Numbers numbers, String field) {
		boolean carries = false;
		for (Limit limit : operation.getLimits()) {
			if (limit.name().equals(name)) {
				carries = true;
				if (limit.calendar() != null && numbers.period() != null) {
					throw new IllegalArgumentException(field + "period: limit '" + name + "' is counted by the "
							+ limit.periodText() + " of a calendar, which a period does not change; set its threshold");
				}
				try {
					numbers.applyTo(limit);
				}
				catch (IllegalArgumentException ex) {
					String message = ex.getMessage();
					String which = message.startsWith("threshold") ? "threshold" : "period";
					throw new IllegalArgumentException(field + which + ": " + message);
				}
			}
		}
		if (carries && numbers.threshold() != null && numbers.threshold() < operation.getPermits()) {
			throw new IllegalArgumentException(field + "threshold: " + numbers.threshold() + " is below the "
					+ operation.getPermits() + " permits one call of " + operation.getDescription() + " takes");
		}
	}

}
