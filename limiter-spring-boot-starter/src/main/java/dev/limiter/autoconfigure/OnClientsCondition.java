package dev.limiter.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code limiter.clients} names at least one upstream.
 */
class OnClientsCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> clients = Binder.get(context.getEnvironment())
			.bind("limiter.clients", Bindable.mapOf(String.class, Object.class))
			.orElse(Map.of());
		return clients.isEmpty() ? ConditionOutcome.noMatch("limiter.clients names no upstream")
				: ConditionOutcome.match("limiter.clients names " + clients.keySet());
	}

}
