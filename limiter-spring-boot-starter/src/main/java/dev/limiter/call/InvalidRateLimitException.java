package dev.limiter.call;

/**
 * Thrown when a {@link dev.limiter.annotation.RateLimit @RateLimit} annotation cannot be
 * enforced; names the method, the problem and the fix.
 */
public class InvalidRateLimitException extends RuntimeException {

	private final String method;

	private final String problem;

	private final String fix;

	/**
	 * Create the exception.
	 * @param method the annotated method, as shown to the developer
	 * @param problem what is wrong
	 * @param fix how to fix it
	 */
	public InvalidRateLimitException(String method, String problem, String fix) {
		super("Invalid @RateLimit on " + method + ": " + problem);
		this.method = method;
		this.problem = problem;
		this.fix = fix;
	}

	public String getMethod() {
		return this.method;
	}

	public String getProblem() {
		return this.problem;
	}

	public String getFix() {
		return this.fix;
	}

}
