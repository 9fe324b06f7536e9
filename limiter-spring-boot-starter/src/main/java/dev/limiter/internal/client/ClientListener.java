package dev.limiter.internal.client;

/**
 * Told of what happens to the requests of {@code limiter.clients}, such as by the
 * metrics.
 */
public interface ClientListener {

	/** A listener that ignores everything. */
	ClientListener NONE = new ClientListener() {
	};

	/**
	 * A request got its turn after waiting.
	 * @param client the client's name
	 * @param nanos how long it waited
	 */
	default void waited(String client, long nanos) {
	}

	/**
	 * A request could not get a turn within its wait and was not sent.
	 * @param client the client's name
	 */
	default void refused(String client) {
	}

	/**
	 * The upstream answered a request 429 or 503.
	 * @param client the client's name
	 * @param status the status
	 */
	default void upstreamRejected(String client, int status) {
	}

}
