package dev.limiter.internal.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.limiter.RateLimiter;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;

/**
 * Checks the limiter's store for a health indicator, independently of the Spring Boot
 * line: the in-memory store is always up; Redis is down while the circuit breaker is open
 * (without paying the timeout again) and otherwise as a {@code PING} on the limiter's own
 * connection says.
 */
public final class LimiterHealthCheck {

	private final RateLimiter rateLimiter;

	private final LimiterRedisConnection connection;

	/**
	 * Create a check.
	 * @param rateLimiter the application's limiter
	 * @param connection the limiter's Redis connection, or {@code null} without Redis
	 */
	public LimiterHealthCheck(RateLimiter rateLimiter, LimiterRedisConnection connection) {
		if (rateLimiter == null) {
			throw new IllegalArgumentException("rateLimiter must not be null");
		}
		this.rateLimiter = rateLimiter;
		this.connection = connection;
	}

	/**
	 * Check the store now.
	 * @return the status and its details
	 */
	public Result check() {
		Map<String, Object> details = new LinkedHashMap<>();
		if (this.rateLimiter instanceof InMemoryRateLimiter) {
			details.put("store", "memory");
			return new Result(Result.UP, details);
		}
		if (this.connection == null) {
			details.put("store", this.rateLimiter.getClass().getName());
			return new Result(Result.UNKNOWN, details);
		}
		details.put("store", "redis");
		if (this.connection.getTimeout() != null) {
			details.put("timeout", this.connection.getTimeout().toMillis() + "ms");
		}
		if (this.rateLimiter instanceof ResilientRateLimiter resilient) {
			ResilientRateLimiter.BreakerState state = resilient.breakerState();
			details.put("breaker", state.name());
			if (state == ResilientRateLimiter.BreakerState.OPEN) {
				details.put("error", "Redis did not answer; calls are decided by their failure policy");
				return new Result(Result.DOWN, details);
			}
		}
		try {
			this.connection.ping();
			return new Result(Result.UP, details);
		}
		catch (RuntimeException ex) {
			details.put("error", ex.getClass().getName() + ": " + ex.getMessage());
			return new Result(Result.DOWN, details);
		}
	}

	/**
	 * The outcome of a check.
	 *
	 * @param status the status code: {@value #UP}, {@value #DOWN} or {@value #UNKNOWN}
	 * @param details what the status is based on
	 */
	public record Result(String status, Map<String, Object> details) {

		/** The store answers. */
		public static final String UP = "UP";

		/** The store does not answer. */
		public static final String DOWN = "DOWN";

		/** The store is the application's own and cannot be checked. */
		public static final String UNKNOWN = "UNKNOWN";

	}

}
