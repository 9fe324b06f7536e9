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
 * (without paying the timeout again, and saying why: the store's latest failure, such as
 * a Redis out of memory) and otherwise as a {@code PING} on the limiter's own connection
 * says. A Redis that evicts keys when full is up, with a detail that says what it costs.
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
			Throwable failure = resilient.lastFailure();
			if (state == ResilientRateLimiter.BreakerState.OPEN) {
				details.put("error", (failure != null) ? explain(failure)
						: "Redis did not answer; calls are decided by their failure policy");
				return new Result(Result.DOWN, details);
			}
			if (failure != null) {
				details.put("lastFailure", explain(failure));
			}
		}
		try {
			this.connection.ping();
		}
		catch (RuntimeException ex) {
			details.put("error", ex.getClass().getName() + ": " + ex.getMessage());
			return new Result(Result.DOWN, details);
		}
		LimiterRedisConnection.Eviction eviction = this.connection.eviction();
		if (eviction != null && eviction.dropsKeys()) {
			details.put("eviction", "Redis " + eviction.problem());
		}
		return new Result(Result.UP, details);
	}

	/** A store failure in words, with what it means for limits. */
	static String explain(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("OOM command not allowed")) {
				return "Redis is out of memory and refuses the limits' writes (" + message + "): calls are decided "
						+ "by their failure policy until memory frees; give Redis more maxmemory or fewer keys";
			}
		}
		return failure.getClass().getName() + ": " + failure.getMessage()
				+ "; calls are decided by their failure policy";
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
