package dev.limiter.internal.key;

import java.util.function.Supplier;

/**
 * Finds the request being served, whichever the web stack, for key resolvers and for
 * {@code #request} in key expressions.
 */
@FunctionalInterface
public interface CurrentRequest extends Supplier<Object> {

	/** A lookup that never finds a request, outside web applications. */
	CurrentRequest NONE = () -> null;

	/**
	 * Return the request being served.
	 * @return the request, or {@code null} outside a request
	 */
	@Override
	Object get();

}
