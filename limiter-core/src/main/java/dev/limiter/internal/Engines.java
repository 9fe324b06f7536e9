package dev.limiter.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.limiter.RateLimiter;

/**
 * The engines behind Limiter's public stores and decorators, which are final facades over
 * an {@link AbstractRateLimiter}: a decorator reaches the engine of the limiter it wraps,
 * to pass it a call checked once, without that engine becoming part of the facade's API.
 * Each facade class registers how to reach its engine when it is loaded.
 */
public final class Engines {

	private static final Map<Class<?>, Function<RateLimiter, AbstractRateLimiter>> engines = new ConcurrentHashMap<>();

	private Engines() {
	}

	/**
	 * Register how to reach the engine of a facade class.
	 * @param <T> the facade's type
	 * @param facade the facade class, final
	 * @param engine its engine, from an instance
	 */
	@SuppressWarnings("unchecked")
	public static <T extends RateLimiter> void register(Class<T> facade, Function<T, AbstractRateLimiter> engine) {
		engines.put(facade, (Function<RateLimiter, AbstractRateLimiter>) engine);
	}

	/**
	 * Return the engine of a limiter: itself when it is one, a facade's when it is one of
	 * Limiter's, {@code null} otherwise.
	 * @param limiter the limiter
	 * @return its engine, or {@code null}
	 */
	public static AbstractRateLimiter of(RateLimiter limiter) {
		if (limiter instanceof AbstractRateLimiter engine) {
			return engine;
		}
		Function<RateLimiter, AbstractRateLimiter> engine = (limiter != null) ? engines.get(limiter.getClass()) : null;
		return (engine != null) ? engine.apply(limiter) : null;
	}

}
