package dev.limiter.aop;

import java.lang.reflect.Method;

/**
 * A {@link RateLimitKeyResolver} that keys a call by its declaring class and method, so
 * that every caller shares the limit: the default outside web applications.
 */
public class MethodRateLimitKeyResolver implements RateLimitKeyResolver {

	@Override
	public String resolveKey(Method method, Class<?> targetClass, Object[] arguments) {
		return RateLimitKeys.methodKey(method);
	}

}
