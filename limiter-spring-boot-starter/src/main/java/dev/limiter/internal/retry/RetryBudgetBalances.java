package dev.limiter.internal.retry;

import java.util.Map;

/**
 * What the {@code ratelimits} endpoint shows of the retry budgets.
 */
public interface RetryBudgetBalances {

	/**
	 * Describe every budget: its numbers, the retries it allows now and whose count says
	 * so, and the retries allowed and denied on this instance since start.
	 * @return the descriptions by budget name, empty when there is no budget
	 */
	Map<String, Object> describe();

}
