package dev.limiter.internal.client;

/**
 * Where a hold that an upstream asked for is told to the application's other instances,
 * so that they all stop calling it at once.
 */
@FunctionalInterface
public interface UpstreamHolds {

	/** Holds that stay on the instance that learned them, as with the in-memory store. */
	UpstreamHolds LOCAL = (client, untilMillis) -> {
	};

	/**
	 * Tell the other instances that a client is held.
	 * @param client the client's name
	 * @param untilMillis until when, in milliseconds since the epoch
	 */
	void announce(String client, long untilMillis);

	/**
	 * Tell the other instances that a client follows a smaller quota that its upstream
	 * announced: the upstream's quota is one for all of them.
	 * @param client the client's name
	 * @param policy the upstream's quota
	 */
	default void announcePolicy(String client, UpstreamPolicy policy) {
	}

}
