package dev.limiter.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The body of an override as it arrives over HTTP, on every web stack: Actuator binds a
 * write operation's JSON body as a flat map of strings, so plans are written with flat
 * keys ({@code {"plans.pro.threshold": 500}}) and gathered here for the endpoint; a field
 * the endpoint does not know is a 400 naming it, and an empty body is a 400 that says how
 * to remove an override, so that a typo can never undo one.
 */
final class OverrideBodies implements OperationInvokerAdvisor {

	private static final EndpointId RATELIMITS = EndpointId.of("ratelimits");

	private static final List<String> FIELDS = List.of("threshold", "period");

	private static final String PLANS = "plans";

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!RATELIMITS.equals(endpointId) || operationType != OperationType.WRITE) {
			return invoker;
		}
		return (context) -> {
			InvocationContext gathered;
			try {
				gathered = gathered(context);
			}
			catch (IllegalArgumentException ex) {
				// the endpoint's own answer to a bad value: a 400 whose body says what
				return new WebEndpointResponse<>(Map.of("error", ex.getMessage()),
						WebEndpointResponse.STATUS_BAD_REQUEST);
			}
			return invoker.invoke(gathered);
		};
	}

	private static InvocationContext gathered(InvocationContext context) {
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
		if (!plans.isEmpty()) {
			arguments.put(PLANS, plans);
		}
		return new InvocationContext(context.resolveArgument(SecurityContext.class), arguments);
	}

}
