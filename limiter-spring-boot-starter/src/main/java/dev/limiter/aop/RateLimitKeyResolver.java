package dev.limiter.aop;

import java.lang.reflect.Method;

/**
 * Resolves who makes a rate-limited call when its
 * {@link dev.limiter.annotation.RateLimit @RateLimit} annotations give no {@code key}
 * expression; a bean of this type replaces the default for the whole application.
 * <p>
 * The key of the call is the operation's scope (its limit's name or its method, see
 * {@link RateLimitOperation#getScope()}) followed by what this resolver returns, so a
 * resolver never makes two limited methods share a counter.
 */
@FunctionalInterface
public interface RateLimitKeyResolver {

	/**
	 * Return who calls, such as {@code u:alice}. Parts that a client controls should be
	 * bounded with {@link RateLimitKeys#bounded}.
	 * @param method the rate-limited method
	 * @param targetClass the class of the target object
	 * @param arguments the arguments of the call
	 * @return the caller part of the key, not blank
	 */
	String resolveKey(Method method, Class<?> targetClass, Object[] arguments);

}
