package dev.limiter.actuate;

import java.util.Map;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The endpoint's answer when Redis does not answer: a 503 that says so, and whether
 * anything changed, within the limiter's timeout, rather than a bare 500 or the
 * application's command timeout.
 */
final class StoreFailures {

	private StoreFailures() {
	}

	/**
	 * Return whether a failure is the store's (Redis unreachable, timed out, or
	 * refusing), as opposed to a defect, which stays a 500.
	 * @param failure the failure
	 * @return whether the store failed
	 */
	static boolean isStore(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof org.springframework.dao.DataAccessException
					|| cause instanceof java.util.concurrent.TimeoutException
					|| isNamed(cause, "io.lettuce.core.RedisException")
					|| isNamed(cause, "redis.clients.jedis.exceptions.JedisException")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Answer a read that Redis did not answer.
	 * @param failure the failure
	 * @return the 503
	 */
	static WebEndpointResponse<Map<String, Object>> read(Throwable failure) {
		return answer(what(failure) + ": nothing was read. The limits themselves (GET /actuator/ratelimits) need no "
				+ "Redis; calls are decided by the limits' failure policies until Redis answers");
	}

	/**
	 * Answer a change that Redis did not take.
	 * @param failure the failure
	 * @param sent whether a write was sent to Redis (not only a read before it)
	 * @param made whether part of the change was made before the failure
	 * @param check the request that shows what applies, such as
	 * {@code GET /actuator/ratelimits/search}
	 * @return the 503
	 */
	static WebEndpointResponse<Map<String, Object>> change(Throwable failure, boolean sent, boolean made,
			String check) {
		if (made || (sent && timedOut(failure))) {
			// A command sent to a stalled Redis runs when it wakes: say so, not that
			// nothing changed.
			return answer(what(failure) + ": the change may be made in part or still be made when Redis answers; "
					+ check + " shows what applies");
		}
		return answer(what(failure) + ": nothing was changed; try again once Redis answers");
	}

	private static WebEndpointResponse<Map<String, Object>> answer(String error) {
		return new WebEndpointResponse<>(Map.of("error", error), WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

	private static String what(Throwable failure) {
		return timedOut(failure) ? "Redis did not answer in time" : "Redis is not answering (" + reason(failure) + ")";
	}

	private static boolean timedOut(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getClass().getSimpleName().contains("Timeout")) {
				return true;
			}
		}
		return false;
	}

	private static String reason(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
		return RateLimitsEndpoint.escaped(message);
	}

	private static boolean isNamed(Throwable failure, String name) {
		for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
			if (type.getName().equals(name)) {
				return true;
			}
		}
		return false;
	}

}
