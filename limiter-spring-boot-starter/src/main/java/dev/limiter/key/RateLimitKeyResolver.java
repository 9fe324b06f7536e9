package dev.limiter.key;

import dev.limiter.call.RateLimitInvocation;

/**
 * Resolves who makes a rate-limited call when its
 * {@link dev.limiter.annotation.RateLimit @RateLimit} annotations give no {@code key}
 * expression; a bean of this type replaces the default for the whole application.
 * <p>
 * The key of the call is the operation's scope (its limit's name or its method, see
 * {@link dev.limiter.call.RateLimitOperation#getScope()}) followed by what this resolver
 * returns, so a resolver never makes two limited methods share a counter.
 */
@FunctionalInterface
public interface RateLimitKeyResolver {

	/**
	 * Return who calls, such as {@code u:alice}. Parts that a client controls should be
	 * bounded with {@link RateLimitKeys#bounded}.
	 * @param invocation the call: its operation, arguments and current request
	 * @return the caller part of the key, not blank
	 */
	String resolveKey(RateLimitInvocation invocation);

	/**
	 * Return whether this resolver reads the call's arguments. When it does not, a caller
	 * already known to be over a limit of a method without a key expression is answered
	 * before the method's arguments are resolved. The default says it does.
	 * @return whether {@link #resolveKey} reads {@link RateLimitInvocation#arguments()}
	 */
	default boolean readsArguments() {
		return true;
	}

}
