package dev.limiter.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when cached rejections are answered before a handler's arguments are resolved:
 * {@code limiter.rejection-cache.before-arguments}, else its former name
 * {@code limiter.web.early-rejection}, else on. Both names are read here and nowhere
 * else, so the old one keeps working while it is deprecated.
 */
class OnRejectionCacheBeforeArgumentsCondition extends SpringBootCondition {

	static final String PROPERTY = "limiter.rejection-cache.before-arguments";

	static final String FORMER_PROPERTY = "limiter.web.early-rejection";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Binder binder = Binder.get(context.getEnvironment());
		boolean before = binder.bind(PROPERTY, Boolean.class)
			.orElseGet(() -> binder.bind(FORMER_PROPERTY, Boolean.class).orElse(true));
		return before ? ConditionOutcome.match(PROPERTY + " is on") : ConditionOutcome.noMatch(PROPERTY + " is off");
	}

}
