package dev.limiter.autoconfigure;

import dev.limiter.internal.limits.LimitResolver;

/**
 * The limit model over properties built by a test, as the auto-configuration builds it.
 */
public final class LimitResolvers {

	private LimitResolvers() {
	}

	public static LimitResolver of(LimiterProperties properties) {
		return LimiterAutoConfiguration.limitResolver(properties);
	}

}
