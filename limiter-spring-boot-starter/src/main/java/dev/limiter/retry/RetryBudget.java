package dev.limiter.retry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes the retries of a method, such as those of Spring Framework's {@code @Retryable}
 * beside it, pay from the retry budget {@code limiter.retry-budgets.<value>} that every
 * instance shares: each call counts as a first attempt, and a retry the budget cannot pay
 * for is not made, the call failing with its last exception.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RetryBudget {

	/**
	 * The budget's name, a key of {@code limiter.retry-budgets}.
	 * @return the name
	 */
	String value();

}
