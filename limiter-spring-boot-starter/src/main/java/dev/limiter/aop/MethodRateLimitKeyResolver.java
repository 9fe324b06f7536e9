package dev.limiter.aop;

import java.lang.reflect.Method;

/**
 * A {@link RateLimitKeyResolver} under which every caller shares the limit of a method:
 * the default outside web applications.
 */
public class MethodRateLimitKeyResolver implements RateLimitKeyResolver {

	/** The caller part of the key when every caller shares the limit. */
	public static final String ALL_CALLERS = "all";

	@Override
	public String resolveKey(Method method, Class<?> targetClass, Object[] arguments) {
		return ALL_CALLERS;
	}

}
