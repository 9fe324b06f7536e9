package dev.limiter.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.limiter.autoconfigure.LimiterProperties.Store;

/**
 * Conditions on {@code limiter.store}, read with the same relaxed binding as the
 * properties.
 */
final class StoreCondition {

	private StoreCondition() {
	}

	/**
	 * Return the configured store.
	 * @param environment the environment
	 * @return the store, {@link Store#AUTO} when unset
	 */
	static Store of(Environment environment) {
		return Binder.get(environment).bind("limiter.store", Store.class).orElse(Store.AUTO);
	}

	/**
	 * Matches unless {@code limiter.store=memory}: a memory store never touches Redis,
	 * even when it is there.
	 */
	static final class NotMemory extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Store store = of(context.getEnvironment());
			return (store != Store.MEMORY) ? ConditionOutcome.match("limiter.store is " + store)
					: ConditionOutcome.noMatch("limiter.store is memory");
		}

	}

}
