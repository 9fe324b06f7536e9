package dev.limiter.internal.key;

import reactor.core.publisher.Mono;

/**
 * Finds the request being served by a reactive web stack, from the Reactor context of the
 * subscription, with whatever a key resolver needs of it made available without blocking
 * (such as the principal).
 */
@FunctionalInterface
public interface ReactiveCurrentRequest {

	/**
	 * Return the request being served.
	 * @return the request, or empty outside a request
	 */
	Mono<Object> get();

}
