package dev.limiter.retry;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.Retryable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The retry budgets of {@code limiter.retry-budgets}, shared by every instance, for
 * retries made by a {@link RetryTemplate}, by Reactor's {@code retryWhen} or by hand.
 * Each call counts as one first attempt without a call to Redis; each retry is one call,
 * and a retry the budget cannot pay for is not made.
 */
public interface RetryBudgets {

	/**
	 * Run a call through a template whose retries the budget pays for: the template's
	 * policy decides as before, and a retry the budget cannot pay for ends the call as if
	 * the policy were exhausted, with a {@link RetryException} whose cause is the last
	 * failure.
	 * @param <R> the call's result
	 * @param budget the budget's name
	 * @param template the template, whose policy and listener are used
	 * @param call the call
	 * @return the call's result
	 * @throws RetryException when the call failed and no retry was made
	 * @throws IllegalArgumentException when there is no such budget
	 */
	<R> R execute(String budget, RetryTemplate template, Retryable<? extends R> call) throws RetryException;

	/**
	 * Return a {@code Mono} that subscribes to a call and retries it as {@code retry}
	 * says, each retry paid from the budget: one that cannot be paid for is not made, and
	 * the {@code Mono} fails with the call's last error.
	 * @param <T> the call's element
	 * @param budget the budget's name
	 * @param call the call, subscribed to again for each retry
	 * @param retry when to retry, such as
	 * {@code Retry.backoff(3, Duration.ofMillis(100))}
	 * @return the call with its retries
	 * @throws IllegalArgumentException when there is no such budget
	 */
	<T> Mono<T> retry(String budget, Mono<T> call, Retry retry);

	/**
	 * Return a {@code Flux} that subscribes to a call and retries it as {@code retry}
	 * says, each retry paid from the budget, as {@link #retry(String, Mono, Retry)} does.
	 * @param <T> the call's element
	 * @param budget the budget's name
	 * @param call the call, subscribed to again for each retry
	 * @param retry when to retry
	 * @return the call with its retries
	 * @throws IllegalArgumentException when there is no such budget
	 */
	<T> Flux<T> retry(String budget, Flux<T> call, Retry retry);

	/**
	 * Count a first attempt, for retries made by hand: in memory, sent to Redis with the
	 * next retry or within a fraction of a second.
	 * @param budget the budget's name
	 * @throws IllegalArgumentException when there is no such budget
	 */
	void firstAttempt(String budget);

	/**
	 * Ask for one retry, for retries made by hand: one call to Redis, this instance's own
	 * count while Redis cannot answer.
	 * @param budget the budget's name
	 * @return whether the retry may be made
	 * @throws IllegalArgumentException when there is no such budget
	 */
	boolean tryRetry(String budget);

}
