package dev.limiter.internal.actuate;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * For AOT processing and native images: the health indicator is a JDK proxy of the Spring
 * Boot line's {@code HealthIndicator}, and builds its {@code Health} reflectively.
 */
final class ActuateRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		for (String healthPackage : LimiterHealthIndicatorFactoryBean.PACKAGES) {
			if (ClassUtils.isPresent(healthPackage + ".HealthIndicator", classLoader)) {
				hints.proxies().registerJdkProxy(TypeReference.of(healthPackage + ".HealthIndicator"));
				hints.reflection()
					.registerType(TypeReference.of(healthPackage + ".Health"), MemberCategory.INVOKE_PUBLIC_METHODS)
					.registerType(TypeReference.of(healthPackage + ".Health$Builder"),
							MemberCategory.INVOKE_PUBLIC_METHODS);
			}
		}
	}

}
