package dev.limiter;

/**
 * Thrown when a call is rejected because the limiter's store (Redis) could not answer in
 * time and one of the call's limits fails closed ({@link Decision#policy()} is
 * {@link FailurePolicy#FAIL_CLOSED}); the starter's web layer answers it with the
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
	 * Create the exception for a fail-closed rejection, with the standard message.
	 * @param key the rate-limit key of the call
	 * @param decision the degraded rejection
	 * @return the exception
	 */
	public static RateLimitUnavailableException of(String key, Decision decision) {
		if (decision == null) {
			throw new IllegalArgumentException("decision must not be null");
		}
		return new RateLimitUnavailableException(standardMessage(decision), key, decision);
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
