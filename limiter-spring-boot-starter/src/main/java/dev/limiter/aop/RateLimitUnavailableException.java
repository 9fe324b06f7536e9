package dev.limiter.aop;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;

/**
 * Thrown when a call is rejected because the limiter's store (Redis) could not answer in
 * time and one of the call's limits fails closed; the web layer answers it with the
 * configured status ({@code limiter.failure.status}, 503 by default) instead of 429.
 * <p>
 * A subclass of {@link RateLimitExceededException}, so that an application that handles
 * rejections itself handles these too.
 */
public class RateLimitUnavailableException extends RateLimitExceededException {

	/**
	 * Create the exception.
	 * @param message the message
	 * @param key the rate-limit key of the call
	 * @param decision the degraded rejection
	 */
	public RateLimitUnavailableException(String message, String key, Decision decision) {
		super(message, key, decision);
	}

	/**
	 * Return the standard message, such as
	 * {@code Rate limit 'login' cannot be checked: the limiter's store is unavailable, retry after 1s}.
	 * @param decision the degraded rejection
	 * @return the message
	 */
	public static String standardMessage(Decision decision) {
		return "Rate limit '" + decision.limit().name()
				+ "' cannot be checked: the limiter's store is unavailable, retry after " + decision.retryAfterSeconds()
				+ "s";
	}

}
