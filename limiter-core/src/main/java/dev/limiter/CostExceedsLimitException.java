package dev.limiter;

import java.time.Duration;

/**
 * Thrown when one call costs more than a limit holds in all: it can never pass, however
 * long it waits, until the limit is raised or the call made cheaper.
 * <p>
 * A subclass of {@link RateLimitExceededException}, so that code that catches a refusal
 * catches this one too; it is answered as a request that cannot be served as it stands
 * (HTTP 400, gRPC {@code FAILED_PRECONDITION}), never with a time to retry: its decision
 * is the limit's, with no retry-after.
 */
public class CostExceedsLimitException extends RateLimitExceededException {

	private final long cost;

	/**
	 * Create the exception.
	 * @param message the message, which names the numbers and what to change
	 * @param key the key the call counts under
	 * @param cost what the call costs, in permits
	 * @param limit the limit that cannot hold it, the one with the smallest threshold
	 */
	public CostExceedsLimitException(String message, String key, long cost, Limit limit) {
		super(message, key, Decision.rejected(limit, limit.threshold(), Duration.ZERO, Duration.ZERO, 0));
		this.cost = cost;
	}

	/**
	 * Create the exception with the standard message.
	 * @param key the key the call counts under
	 * @param cost what the call costs, in permits
	 * @param limit the limit that cannot hold it
	 * @return the exception
	 */
	public static CostExceedsLimitException of(String key, long cost, Limit limit) {
		if (limit == null) {
			throw new IllegalArgumentException("limit must not be null");
		}
		return new CostExceedsLimitException(standardMessage(cost, limit), key, cost, limit);
	}

	/**
	 * Return the standard message: the cost, the limit's whole threshold, and the fix.
	 * @param cost what the call costs
	 * @param limit the limit that cannot hold it
	 * @return the message
	 */
	public static String standardMessage(long cost, Limit limit) {
		return message(cost, "permits", limit, "make the call cost less, or raise the limit's threshold");
	}

	/**
	 * Return the message of a surface that counts in its own unit and says its own fix.
	 * @param cost what the call costs
	 * @param unit what it is counted in, such as {@code tokens}
	 * @param limit the limit that cannot hold it
	 * @param fix what to change, such as {@code ask for fewer items}
	 * @return the message
	 */
	public static String message(long cost, String unit, Limit limit, String fix) {
		return "The call costs " + cost + " " + unit + ", more than the " + limit.threshold() + " that limit '"
				+ limit.name() + "' holds in all, so it can never pass: " + fix;
	}

	/**
	 * Return what the call costs, in permits.
	 * @return the cost
	 */
	public long getCost() {
		return this.cost;
	}

	/**
	 * Return the most one call may cost under the limit: its whole threshold.
	 * @return the largest cost
	 */
	public long getLargestCost() {
		return getDecision().limit().threshold();
	}

}
