package dev.limiter.internal.limits;

/**
 * A limit that cannot be enforced as given: what is wrong, and what to change. Each
 * source of limits wraps it into its own error, naming the method, the route or the
 * property.
 */
public class InvalidLimitException extends IllegalArgumentException {

	private final String problem;

	private final String fix;

	InvalidLimitException(String problem, String fix) {
		super(problem + ". " + fix);
		this.problem = problem;
		this.fix = fix;
	}

	/**
	 * Return what is wrong.
	 * @return the problem, such as {@code threshold must be between 1 and 2147483647}
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * Return what to change.
	 * @return the fix, naming the attribute as its source spells it
	 */
	public String getFix() {
		return this.fix;
	}

}
