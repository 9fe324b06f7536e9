package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.limiter.annotation.RateLimit;
import dev.limiter.annotation.RateLimits;

/**
 * For AOT processing and native images: a bean with {@code @RateLimit} methods keeps
 * them, their annotations and their parameter names (the keys' SpEL names parameters)
 * reachable by reflection, and the request types that {@code #request} exposes to SpEL
 * keep their public methods.
 */
final class RateLimitAotProcessor implements BeanRegistrationAotProcessor {

	/** The types {@code #request} is on each web stack, and what keys read from them. */
	static final List<String> REQUEST_TYPES = List.of("jakarta.servlet.ServletRequest",
			"jakarta.servlet.http.HttpServletRequest", "org.springframework.web.server.ServerWebExchange",
			"org.springframework.http.server.reactive.ServerHttpRequest", "org.springframework.http.HttpHeaders",
			"org.springframework.http.HttpRequest", "org.springframework.util.MultiValueMap", "java.security.Principal",
			"java.net.InetSocketAddress", "java.net.InetAddress");

	@Override
	public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
		List<Method> limited = new ArrayList<>();
		ReflectionUtils.doWithMethods(type, (method) -> {
			if (RateLimitAnnotationParser.isRateLimited(method)) {
				limited.add(method);
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		if (limited.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			reflection.registerType(type, MemberCategory.INTROSPECT_DECLARED_METHODS,
					MemberCategory.INTROSPECT_PUBLIC_METHODS);
			for (Method method : limited) {
				reflection.registerMethod(method, ExecutableMode.INVOKE);
			}
			reflection.registerType(RateLimit.class, MemberCategory.INVOKE_DECLARED_METHODS);
			reflection.registerType(RateLimits.class, MemberCategory.INVOKE_DECLARED_METHODS);
			ClassLoader classLoader = type.getClassLoader();
			for (String request : REQUEST_TYPES) {
				if (ClassUtils.isPresent(request, classLoader)) {
					reflection.registerType(TypeReference.of(request), MemberCategory.INVOKE_PUBLIC_METHODS);
				}
			}
		};
	}

}
