package dev.limiter.call;

import java.util.function.Supplier;

/**
 * One call of a rate-limited method, as key resolvers and key expressions see it: the
 * operation, the target, the arguments, and the current request whichever the web stack.
 */
public final class RateLimitInvocation {

	private final RateLimitOperation operation;

	private final Class<?> targetClass;

	private final Object[] arguments;

	private final Supplier<?> request;

	/**
	 * Create an invocation.
	 * @param operation the operation of the called method
	 * @param targetClass the class of the target object
	 * @param arguments the arguments of the call
	 * @param request looks up the current request when asked, giving {@code null} outside
	 * a request
	 */
	public RateLimitInvocation(RateLimitOperation operation, Class<?> targetClass, Object[] arguments,
			Supplier<?> request) {
		this.operation = operation;
		this.targetClass = targetClass;
		this.arguments = arguments;
		this.request = (request != null) ? request : () -> null;
	}

	/**
	 * Return the same call under another operation of its method, such as a plan's.
	 * @param operation the operation
	 * @return the call
	 */
	public RateLimitInvocation withOperation(RateLimitOperation operation) {
		return new RateLimitInvocation(operation, this.targetClass, this.arguments, this.request);
	}

	/**
	 * Return the operation of the called method.
	 * @return the operation
	 */
	public RateLimitOperation operation() {
		return this.operation;
	}

	/**
	 * Return the class of the object the method is called on.
	 * @return the target class
	 */
	public Class<?> targetClass() {
		return this.targetClass;
	}

	/**
	 * Return the arguments of the call, empty when it is decided before they exist.
	 * @return the arguments
	 */
	public Object[] arguments() {
		return this.arguments;
	}

	/**
	 * Return the current request, such as an {@code HttpServletRequest}.
	 * @return the request, or {@code null} outside a request
	 */
	public Object request() {
		return this.request.get();
	}

	/**
	 * Return the current request if it is of a type.
	 * @param <T> the type
	 * @param type the type, such as {@code HttpServletRequest.class}
	 * @return the request, or {@code null} outside a request or for another type
	 */
	public <T> T request(Class<T> type) {
		Object request = request();
		return type.isInstance(request) ? type.cast(request) : null;
	}

}
