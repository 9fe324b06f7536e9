package dev.limiter.client;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * For AOT processing and native images: the {@code RestTemplateBuilder} method that
 * {@link ClientBuilders} calls reflectively, on either Spring Boot line.
 */
final class ClientRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		for (String builder : ClientBuilders.REST_TEMPLATE_BUILDERS) {
			if (ClassUtils.isPresent(builder, classLoader)) {
				hints.reflection().registerType(TypeReference.of(builder), MemberCategory.INVOKE_PUBLIC_METHODS);
			}
		}
	}

}
