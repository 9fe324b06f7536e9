package dev.limiter.internal.key;

import dev.limiter.call.RateLimitInvocation;
import dev.limiter.key.RateLimitKeyResolver;

/**
 * A {@link RateLimitKeyResolver} under which every caller shares the limit of a method:
 * the default outside web applications.
 */
public class MethodRateLimitKeyResolver implements RateLimitKeyResolver {

	/** The caller part of the key when every caller shares the limit. */
	public static final String ALL_CALLERS = "all";

	@Override
	public String resolveKey(RateLimitInvocation invocation) {
		return ALL_CALLERS;
	}

}
