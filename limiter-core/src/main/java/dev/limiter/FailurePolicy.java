package dev.limiter;

/**
 * What a limit does when its store (Redis) cannot answer in time.
 */
public enum FailurePolicy {

	/**
	 * Admit the call: an outage of the store never takes the application down with it.
	 * The default, as in Envoy, Kong and Spring Cloud Gateway.
	 */
	FAIL_OPEN,

	/**
	 * Reject the call: for limits that protect against abuse, such as login attempts,
	 * where admitting unlimited calls is worse than refusing some.
	 */
	FAIL_CLOSED,

	/**
	 * Decide with an in-memory limiter in this instance, at the limit's local threshold:
	 * a per-instance approximation of the global limit until the store is back.
	 */
	LOCAL

}
