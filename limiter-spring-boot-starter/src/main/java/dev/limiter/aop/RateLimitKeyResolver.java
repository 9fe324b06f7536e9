package dev.limiter.aop;

import java.lang.reflect.Method;

/**
 * Resolves the default key of a rate-limited call, the one used when its
 * {@link dev.limiter.annotation.RateLimit @RateLimit} annotations give no {@code key}
 * expression; a bean of this type replaces the default for the whole application.
 */
@FunctionalInterface
public interface RateLimitKeyResolver {

	/**
	 * Return the key of a call: who calls and what is called, such as a user and a route.
	 * Parts that a client controls should be bounded with {@link RateLimitKeys#bounded}.
	 * @param method the rate-limited method
	 * @param targetClass the class of the target object
	 * @param arguments the arguments of the call
	 * @return the key, not blank
	 */
	String resolveKey(Method method, Class<?> targetClass, Object[] arguments);

}
