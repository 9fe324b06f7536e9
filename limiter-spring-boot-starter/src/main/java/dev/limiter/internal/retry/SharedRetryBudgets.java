package dev.limiter.internal.retry;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.Retryable;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import dev.limiter.internal.retry.RetryBudgetStore.BudgetSettings;
import dev.limiter.internal.store.RepeatedTask;
import dev.limiter.retry.RetryBudgets;

/**
 * The budgets of {@code limiter.retry-budgets}: an account each, whose first attempts are
 * sent to the shared store every {@link #FLUSH} and with each retry.
 */
public final class SharedRetryBudgets implements RetryBudgets, RetryBudgetBalances, SmartLifecycle {

	/** How often the first attempts counted in memory are sent to the store. */
	public static final Duration FLUSH = Duration.ofMillis(200);

	private final Map<String, RetryBudgetAccount> accounts = new LinkedHashMap<>();

	private volatile boolean started;

	private final RepeatedTask flushes = new RepeatedTask("limiter-retry-budgets", FLUSH, FLUSH, this::flush);

	/**
	 * Create the budgets.
	 * @param budgets every budget's name and numbers
	 * @param store the shared store, or {@code null} when each instance counts alone
	 * @param clock this instance's clock, for its own count
	 */
	public SharedRetryBudgets(Collection<BudgetSettings> budgets, RetryBudgetStore store, LongSupplier clock) {
		budgets.forEach((budget) -> this.accounts.put(budget.name(), new RetryBudgetAccount(budget, store, clock)));
	}

	/**
	 * Return a budget's account.
	 * @param budget the budget's name
	 * @return the account
	 * @throws IllegalArgumentException when there is no such budget
	 */
	public RetryBudgetAccount account(String budget) {
		RetryBudgetAccount account = this.accounts.get(budget);
		if (account == null) {
			throw new IllegalArgumentException("No retry budget is named '" + budget + "': add limiter.retry-budgets."
					+ budget + ".ratio (and min-per-second), or use one of " + this.accounts.keySet());
		}
		return account;
	}

	/**
	 * Return every budget's account.
	 * @return the accounts, in the order of the properties
	 */
	public Collection<RetryBudgetAccount> accounts() {
		return this.accounts.values();
	}

	@Override
	public <R> R execute(String budget, RetryTemplate template, Retryable<? extends R> call) throws RetryException {
		RetryBudgetAccount account = account(budget);
		RetryTemplate paid = new RetryTemplate(new PaidRetryPolicy(template.getRetryPolicy(), account));
		paid.setRetryListener(template.getRetryListener());
		account.firstAttempt();
		return paid.execute(call);
	}

	@Override
	public <T> Mono<T> retry(String budget, Mono<T> call, Retry retry) {
		RetryBudgetAccount account = account(budget);
		return Mono.defer(() -> {
			account.firstAttempt();
			return call.retryWhen(paid(account, retry));
		});
	}

	@Override
	public <T> Flux<T> retry(String budget, Flux<T> call, Retry retry) {
		RetryBudgetAccount account = account(budget);
		return Flux.defer(() -> {
			account.firstAttempt();
			return call.retryWhen(paid(account, retry));
		});
	}

	@Override
	public void firstAttempt(String budget) {
		account(budget).firstAttempt();
	}

	@Override
	public boolean tryRetry(String budget) {
		return account(budget).tryRetry();
	}

	// The retry spec decides first, so a retry it would not make costs nothing; the
	// companion's next value is the retry, made only once the budget paid for it.
	private static Retry paid(RetryBudgetAccount account, Retry retry) {
		return Retry.from((signals) -> {
			AtomicReference<Throwable> last = new AtomicReference<>();
			return Flux.from(retry.generateCompanion(signals.doOnNext((signal) -> last.set(signal.failure()))))
				.concatMap((next) -> account.tryRetryLater()
					.flatMap((paid) -> paid ? Mono.just(next) : Mono.error(last.get())));
		});
	}

	@Override
	public Map<String, Object> describe() {
		Map<String, Object> budgets = new LinkedHashMap<>();
		this.accounts.forEach((name, account) -> {
			RetryBudgetAccount.Balance balance = account.balance();
			Map<String, Object> description = new LinkedHashMap<>();
			description.put("ratio", account.settings().ratio());
			description.put("minPerSecond", account.settings().minPerSecond());
			description.put("retriesLeft", balance.retries());
			description.put("counted", balance.shared() ? "every instance" : "this instance, Redis not answering");
			description.put("allowed", account.allowed());
			description.put("denied", account.denied());
			budgets.put(name, description);
		});
		return budgets;
	}

	/**
	 * Send every budget's first attempts counted since the last flush.
	 */
	public void flush() {
		this.accounts.values().forEach(RetryBudgetAccount::flush);
	}

	@Override
	public void start() {
		this.started = true;
		if (!this.accounts.isEmpty()) {
			this.flushes.start();
		}
	}

	@Override
	public void stop() {
		this.started = false;
		this.flushes.stop();
		flush();
	}

	@Override
	public boolean isRunning() {
		return this.flushes.isRunning() || this.started;
	}

	/**
	 * A template's policy whose retries the budget pays for: asked only once the policy
	 * and its back-off would retry, so a retry they would not make costs nothing.
	 */
	private record PaidRetryPolicy(RetryPolicy policy, RetryBudgetAccount account) implements RetryPolicy {

		@Override
		public boolean shouldRetry(Throwable throwable) {
			return this.policy.shouldRetry(throwable);
		}

		@Override
		public Duration getTimeout() {
			return this.policy.getTimeout();
		}

		@Override
		public BackOff getBackOff() {
			BackOff backOff = this.policy.getBackOff();
			Duration timeout = this.policy.getTimeout();
			return () -> {
				BackOffExecution execution = backOff.start();
				long started = System.nanoTime();
				return () -> {
					long wait = execution.nextBackOff();
					if (wait == BackOffExecution.STOP || pastTimeout(timeout, started, wait)) {
						// no retry follows: the template stops, or its timeout does
						return wait;
					}
					return this.account.tryRetry() ? wait : BackOffExecution.STOP;
				};
			};
		}

		private static boolean pastTimeout(Duration timeout, long started, long wait) {
			return timeout != null && !timeout.isZero() && !timeout.isNegative()
					&& Duration.ofNanos(System.nanoTime() - started).plusMillis(wait).compareTo(timeout) > 0;
		}

	}

}
