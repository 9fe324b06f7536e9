package dev.limiter.autoconfigure;

/**
 * Thrown at startup when the application's setup cannot give the rate limiting it asks
 * for, such as a Redis user that may not run scripts; names the problem and the fix.
 */
class LimiterSetupException extends RuntimeException {

	private final String fix;

	/**
	 * Create the exception.
	 * @param problem what is wrong
	 * @param fix how to fix it
	 * @param cause what revealed the problem, or {@code null}
	 */
	LimiterSetupException(String problem, String fix, Throwable cause) {
		super(problem, cause);
		this.fix = fix;
	}

	public String getFix() {
		return this.fix;
	}

}
