package dev.limiter.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code limiter.enabled=false}. The value is bound as a boolean, so a
 * mistyped one ({@code maybe}) stops the start naming the property instead of switching
 * rate limiting off without a word.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(ConditionalOnLimiterEnabled.OnLimiterEnabled.class)
@interface ConditionalOnLimiterEnabled {

	/**
	 * Reads {@code limiter.enabled}.
	 */
	class OnLimiterEnabled extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean enabled = Binder.get(context.getEnvironment())
				.bind("limiter.enabled", Boolean.class)
				.orElse(Boolean.TRUE);
			return enabled ? ConditionOutcome.match("limiter.enabled is true")
					: ConditionOutcome.noMatch("limiter.enabled is false");
		}

	}

}
