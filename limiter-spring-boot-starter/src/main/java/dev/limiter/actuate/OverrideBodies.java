package dev.limiter.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.invoke.ParameterMappingException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.limiter.internal.LogText;
import dev.limiter.internal.limits.LimitOverrides;

/**
 * The body of an override as it arrives over HTTP, on every web stack: Actuator binds a
 * write operation's JSON body as a flat map of strings, so plans are written with flat
 * keys ({@code {"plans.pro.threshold": 500}}) and gathered here for the endpoint; a field
 * the endpoint does not know is a 400 naming it, and an empty body is a 400 that says how
 * to remove an override, so that a typo can never undo one.
 * <p>
 * A field a body does not name keeps the override it has: only here can a field left out
 * be told from one sent as {@code null} (which removes it), since Actuator binds both as
 * {@code null}. So the numbers a limit's override has now (its own, and each plan's), or
 * a caller's, fill the fields left out, and the endpoint stores the whole override as it
 * then stands.
 */
final class OverrideBodies implements OperationInvokerAdvisor {

	private static final EndpointId RATELIMITS = EndpointId.of("ratelimits");

	private static final List<String> FIELDS = List.of("threshold", "period");

	private static final String PLANS = "plans";

	private final Supplier<LimitOverrides> overrides;

	private final BiFunction<String, String, String> callerKeys;

	/**
	 * Create the advisor.
	 * @param overrides the overrides in force, or a supplier of {@code null} where there
	 * are none to keep
	 * @param callerKeys the full key of a caller under a limit's name, as the endpoint
	 * builds it, or {@code null} when no limit has that name
	 */
	OverrideBodies(Supplier<LimitOverrides> overrides, BiFunction<String, String, String> callerKeys) {
		this.overrides = overrides;
		this.callerKeys = callerKeys;
	}

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!RATELIMITS.equals(endpointId) || operationType != OperationType.WRITE) {
			return invoker;
		}
		return (context) -> {
			InvocationContext gathered;
			try {
				gathered = gathered(context, this.overrides.get(), this.callerKeys);
			}
			catch (IllegalArgumentException ex) {
				// the endpoint's own answer to a bad value: a 400 whose body says what
				return new WebEndpointResponse<>(Map.of("error", ex.getMessage()),
						WebEndpointResponse.STATUS_BAD_REQUEST);
			}
			try {
				return invoker.invoke(gathered);
			}
			catch (ParameterMappingException ex) {
				// a value Actuator cannot convert (a threshold past a long, "ten", 1.5),
				// which would otherwise be the error page's bare 400
				return new WebEndpointResponse<>(Map.of("error", unconvertible(ex)),
						WebEndpointResponse.STATUS_BAD_REQUEST);
			}
		};
	}

	private static String unconvertible(ParameterMappingException ex) {
		String field = ex.getParameter().getName();
		String value = LogText.oneLine(String.valueOf(ex.getValue()));
		value = (value.length() > 40) ? value.substring(0, 40) + "..." : value;
		return field + ": '" + value + "' is not a "
				+ ("threshold".equals(field) ? "whole number between 1 and 2147483647" : "value this field takes");
	}

	private static InvocationContext gathered(InvocationContext context, LimitOverrides overrides,
			BiFunction<String, String, String> callerKeys) {
		Map<String, Object> arguments = new LinkedHashMap<>();
		Map<String, Map<String, Object>> plans = new LinkedHashMap<>();
		Set<String> unknown = new TreeSet<>();
		boolean numbers = false;
		for (Map.Entry<String, Object> argument : context.getArguments().entrySet()) {
			String field = argument.getKey();
			if (field.equals("name") || field.equals("key")) {
				arguments.put(field, argument.getValue());
			}
			else if (FIELDS.contains(field)) {
				arguments.put(field, argument.getValue());
				numbers = true;
			}
			else if (field.startsWith(PLANS + ".") && field.indexOf('.', PLANS.length() + 1) > 0) {
				String plan = field.substring(PLANS.length() + 1, field.lastIndexOf('.'));
				String planField = field.substring(field.lastIndexOf('.') + 1);
				if (!FIELDS.contains(planField)) {
					unknown.add(field);
					continue;
				}
				plans.computeIfAbsent(plan, (name) -> new LinkedHashMap<>()).put(planField, argument.getValue());
				numbers = true;
			}
			else {
				unknown.add(field);
			}
		}
		if (!unknown.isEmpty()) {
			String message = "Unknown field" + ((unknown.size() > 1) ? "s " : " ") + String.join(", ", unknown)
					+ ": an override takes threshold, period, plans.<plan>.threshold and plans.<plan>.period";
			throw new IllegalArgumentException(message);
		}
		if (!numbers) {
			String message = "No numbers given: set threshold, period or plans.<plan>.threshold, or remove the "
					+ "override with {\"threshold\": null, \"period\": null}";
			throw new IllegalArgumentException(message);
		}
		if (overrides != null && arguments.get("name") instanceof String name) {
			String named = name.startsWith("n:") ? name.substring(2) : name;
			if (arguments.get("key") instanceof String key) {
				// a caller's own numbers are kept the same way as a limit's
				String fullKey = callerKeys.apply(name, key);
				LimitOverrides.Numbers own = (fullKey != null)
						? overrides.callers().getOrDefault(named, Map.of()).get(fullKey) : null;
				if (own != null) {
					keep(own, arguments);
				}
			}
			else {
				kept(overrides.named().get(named), arguments, plans);
			}
		}
		if (!plans.isEmpty()) {
			arguments.put(PLANS, plans);
		}
		return new InvocationContext(context.resolveArgument(SecurityContext.class), arguments);
	}

	/**
	 * Fill the fields a body leaves out with the override a limit has now: its own
	 * numbers and each of its plans'.
	 */
	private static void kept(LimitOverrides.NamedOverride current, Map<String, Object> arguments,
			Map<String, Map<String, Object>> plans) {
		if (current == null) {
			return;
		}
		keep(current.numbers(), arguments);
		current.plans()
			.forEach((plan, numbers) -> keep(numbers, plans.computeIfAbsent(plan, (p) -> new LinkedHashMap<>())));
		plans.values().removeIf(Map::isEmpty);
	}

	private static void keep(LimitOverrides.Numbers numbers, Map<String, Object> fields) {
		// a field sent as null is named, and removes its number: only one left out is
		// kept
		if (numbers.threshold() != null && !fields.containsKey("threshold")) {
			fields.put("threshold", numbers.threshold().toString());
		}
		if (numbers.period() != null && !fields.containsKey("period")) {
			fields.put("period", numbers.period().toString());
		}
	}

}
