package dev.limiter.autoconfigure;

import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Imports the retry budgets' configuration by name, on Spring Framework 7 with Reactor
 * only (Lettuce brings it): the budgets are built on Framework 7's retry support, and the
 * starter's build for Spring Boot 3.5 compiles without them.
 */
final class RetryBudgetsImportSelector implements ImportSelector {

	private static final String CONFIGURATION = "dev.limiter.autoconfigure.RetryBudgetsConfiguration";

	@Override
	public String[] selectImports(AnnotationMetadata importingClassMetadata) {
		ClassLoader classLoader = RetryBudgetsImportSelector.class.getClassLoader();
		boolean present = ClassUtils.isPresent("org.springframework.core.retry.RetryTemplate", classLoader)
				&& ClassUtils.isPresent("reactor.core.publisher.Mono", classLoader)
				&& ClassUtils.isPresent(CONFIGURATION, classLoader);
		return present ? new String[] { CONFIGURATION } : new String[0];
	}

}
