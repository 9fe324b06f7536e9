package dev.limiter.autoconfigure;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Imports the retry budgets' configuration by name, on Spring Framework 7 with Reactor
 * only (Lettuce brings it): the budgets are built on Framework 7's retry support, and the
 * starter's build for Spring Boot 3.5 compiles without them. Where they cannot work, a
 * budget in the properties stops the start rather than doing nothing.
 */
final class RetryBudgetsImportSelector implements ImportSelector, EnvironmentAware {

	private static final String CONFIGURATION = "dev.limiter.autoconfigure.RetryBudgetsConfiguration";

	private Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public String[] selectImports(AnnotationMetadata importingClassMetadata) {
		ClassLoader classLoader = RetryBudgetsImportSelector.class.getClassLoader();
		boolean present = ClassUtils.isPresent("org.springframework.core.retry.RetryTemplate", classLoader)
				&& ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader)
				&& ClassUtils.isPresent(CONFIGURATION, classLoader);
		if (present) {
			return new String[] { CONFIGURATION };
		}
		String budget = Binder.get(this.environment)
			.bind("limiter.retry-budgets", Bindable.mapOf(String.class, LimiterProperties.RetryBudgetSettings.class))
			.map((budgets) -> budgets.keySet().iterator().next())
			.orElse(null);
		if (budget != null) {
			throw new InvalidConfigurationPropertyValueException("limiter.retry-budgets." + budget, budget,
					"Retry budgets are built on Spring Framework 7's retry support (Spring Boot 4) and need Reactor "
							+ "(reactor-core, which Lettuce brings): this application lacks one of them, so the budget "
							+ "would do nothing. Remove limiter.retry-budgets, or move to Spring Boot 4.");
		}
		return new String[0];
	}

}
