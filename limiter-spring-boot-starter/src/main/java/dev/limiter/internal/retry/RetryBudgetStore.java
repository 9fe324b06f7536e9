package dev.limiter.internal.retry;

/**
 * Where the budgets every instance shares are counted.
 */
public interface RetryBudgetStore {

	/**
	 * Add first attempts to a budget and, when asked, take one retry from it.
	 * @param budget the budget
	 * @param firstAttempts the first attempts to add
	 * @param retry whether a retry is asked for
	 * @return the outcome
	 * @throws RuntimeException when the store cannot answer
	 */
	RetryWindow.Outcome apply(BudgetSettings budget, long firstAttempts, boolean retry);

	/**
	 * A budget's name and numbers.
	 *
	 * @param name the name, as in {@code limiter.retry-budgets.<name>}
	 * @param ratio the part of the first attempts that retries may add
	 * @param minPerSecond the retries a second allowed beyond the ratio
	 */
	record BudgetSettings(String name, double ratio, long minPerSecond) {
	}

}
