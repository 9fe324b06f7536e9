package dev.limiter.internal.web.servlet;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * For AOT processing and native images: the error-response interceptors of Spring
 * Framework 7 that {@link RateLimitExceptionResolver} reads reflectively.
 */
final class ServletRuntimeHints implements RuntimeHintsRegistrar {

	private static final String RESOLVER = "org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver";

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		if (ClassUtils.isPresent(RESOLVER, classLoader)) {
			hints.reflection().registerType(TypeReference.of(RESOLVER), MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

}
