package dev.limiter;

/**
 * Thrown when a call is over a rate limit; carries the {@link Decision} so that a handler
 * can tell the client when to come back.
 */
public class RateLimitExceededException extends RuntimeException {

	private final String key;

	private final transient Decision decision;

	/**
	 * Create an exception with a message of its own.
	 * @param message the message
	 * @param key the rate-limit key that was rejected
	 * @param decision the rejection
	 */
	public RateLimitExceededException(String message, String key, Decision decision) {
		// A rejection is an answer, not a fault: no stack trace to fill on every 429.
		super(message, null, false, false);
		if (decision == null) {
			throw new IllegalArgumentException("decision must not be null");
		}
		this.key = key;
		this.decision = decision;
	}

	/**
	 * Create the exception for a rejection, with the standard message.
	 * @param key the rate-limit key that was rejected
	 * @param decision the rejection
	 * @return the exception
	 */
	public static RateLimitExceededException of(String key, Decision decision) {
		if (decision == null) {
			throw new IllegalArgumentException("decision must not be null");
		}
		return new RateLimitExceededException(standardMessage(decision), key, decision);
	}

	/**
	 * Return the standard message for a rejection, such as
	 * {@code Rate limit 'default' (2 per 30s) exceeded, retry after 17s}.
	 * @param decision the rejection
	 * @return the message
	 */
	public static String standardMessage(Decision decision) {
		return "Rate limit " + decision.limit() + " exceeded, retry after " + decision.retryAfterSeconds() + "s";
	}

	public String getKey() {
		return this.key;
	}

	public Decision getDecision() {
		return this.decision;
	}

}
