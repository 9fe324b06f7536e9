package dev.limiter.internal.call;

import java.util.concurrent.TimeoutException;

import org.springframework.util.ClassUtils;
import org.springframework.web.ErrorResponse;
import org.springframework.web.client.RestClientResponseException;

/**
 * The one rule of what an adaptive limit learns as a drop, whichever surface ends the
 * call: a call that failed as an overloaded service fails. A server error (5xx, an
 * upstream's 503 among them), an upstream's 429 and a timeout are drops; a caller's
 * mistake (another 4xx) is not, and an exception that says nothing of load is a call like
 * any other.
 */
final class Drops {

	private static final boolean WEB = ClassUtils.isPresent("org.springframework.web.ErrorResponse",
			Drops.class.getClassLoader());

	private static final boolean REST_CLIENT = WEB && ClassUtils
		.isPresent("org.springframework.web.client.RestClientResponseException", Drops.class.getClassLoader());

	private static final boolean WEB_CLIENT = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			Drops.class.getClassLoader());

	// Deep enough for a cause wrapped by a proxy and a template; a cycle stops here too.
	private static final int MAX_CAUSES = 8;

	private Drops() {
	}

	/**
	 * Return whether a call ended as a drop.
	 * @param failure what it failed with, or {@code null}
	 * @param status the HTTP status of its response, 0 when unknown
	 * @return whether an adaptive limit takes it as a sign of overload
	 */
	static boolean dropped(Throwable failure, int status) {
		if (isDropStatus(status)) {
			return true;
		}
		Throwable cause = failure;
		for (int i = 0; cause != null && i < MAX_CAUSES; i++, cause = cause.getCause()) {
			if (cause instanceof TimeoutException || cause instanceof java.net.SocketTimeoutException
					|| isDropStatus(status(cause))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return the status a method's result answers with, such as a controller's
	 * {@code ResponseEntity}.
	 * @param result what the method returned
	 * @return the status, 0 when the result carries none
	 */
	static int status(Object result) {
		return (WEB && result instanceof org.springframework.http.ResponseEntity<?> entity)
				? entity.getStatusCode().value() : 0;
	}

	/** Whether a status says the service (or its upstream) is overloaded. */
	static boolean isDropStatus(int status) {
		return status == 429 || status >= 500 && status < 600;
	}

	private static int status(Throwable failure) {
		if (WEB && failure instanceof ErrorResponse response) {
			return response.getStatusCode().value();
		}
		if (REST_CLIENT && failure instanceof RestClientResponseException response) {
			return response.getStatusCode().value();
		}
		if (WEB_CLIENT
				&& failure instanceof org.springframework.web.reactive.function.client.WebClientResponseException response) {
			return response.getStatusCode().value();
		}
		return 0;
	}

}
