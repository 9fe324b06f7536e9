package dev.limiter.internal.retry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.internal.LogText;
import dev.limiter.internal.retry.RetryBudgetStore.BudgetSettings;

/**
 * One budget as this instance sees it: first attempts are counted in memory and sent to
 * the shared store with the next retry or the next flush, so a first attempt costs no
 * Redis call; a retry is one call. Every first attempt and every retry is also counted in
 * a window of this instance's own, which decides alone while the store cannot answer, so
 * a budget is never unlimited.
 */
public final class RetryBudgetAccount {

	private final BudgetSettings settings;

	private final RetryBudgetStore store;

	private final LongSupplier clock;

	private final RetryWindow local;

	private static final Logger logger = LoggerFactory.getLogger(RetryBudgetAccount.class);

	private final AtomicLong pending = new AtomicLong();

	private volatile boolean alone;

	private final LongAdder allowed = new LongAdder();

	private final LongAdder denied = new LongAdder();

	/**
	 * Create the account.
	 * @param settings the budget's name and numbers
	 * @param store the shared store, or {@code null} when each instance counts alone
	 * @param clock this instance's clock, for its own window
	 */
	public RetryBudgetAccount(BudgetSettings settings, RetryBudgetStore store, LongSupplier clock) {
		this.settings = settings;
		this.store = store;
		this.clock = clock;
		this.local = new RetryWindow(settings.ratio(), settings.minPerSecond());
	}

	/**
	 * Return the budget's name and numbers.
	 * @return the settings
	 */
	public BudgetSettings settings() {
		return this.settings;
	}

	/**
	 * Count a first attempt, in memory.
	 */
	public void firstAttempt() {
		this.pending.incrementAndGet();
	}

	/**
	 * Ask for a retry: one call to the store, with the first attempts counted since the
	 * last; this instance's own window when the store cannot answer.
	 * @return whether the retry may be made
	 */
	public boolean tryRetry() {
		long firstAttempts = drain();
		boolean paid;
		if (this.store == null) {
			paid = this.local.apply(this.clock.getAsLong(), 0, true).allowed();
		}
		else {
			try {
				paid = this.store.apply(this.settings, firstAttempts, true).allowed();
				shared();
				if (paid) {
					this.local.apply(this.clock.getAsLong(), 0, true);
				}
			}
			catch (RuntimeException ex) {
				alone(ex);
				paid = this.local.apply(this.clock.getAsLong(), 0, true).allowed();
			}
		}
		(paid ? this.allowed : this.denied).increment();
		return paid;
	}

	/**
	 * Ask for a retry without blocking the caller's thread: the store's call runs on
	 * Reactor's threads for blocking work.
	 * @return whether the retry may be made
	 */
	public Mono<Boolean> tryRetryLater() {
		return Mono.fromCallable(this::tryRetry).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Send the first attempts counted since the last call to the store; run every so
	 * often.
	 */
	public void flush() {
		long firstAttempts = drain();
		if (firstAttempts > 0 && this.store != null) {
			try {
				this.store.apply(this.settings, firstAttempts, false);
				shared();
			}
			catch (RuntimeException ex) {
				// This instance's window has them; the shared count does without them.
				alone(ex);
			}
		}
	}

	/**
	 * Return how many retries the budget allows now, and whose count says so.
	 * @return the balance
	 */
	public Balance balance() {
		long firstAttempts = drain();
		if (this.store != null) {
			try {
				return new Balance(this.store.apply(this.settings, firstAttempts, false)
					.balance(this.settings.ratio(), this.settings.minPerSecond()), true);
			}
			catch (RuntimeException ex) {
				// This instance's own count, below.
			}
		}
		return new Balance(this.local.apply(this.clock.getAsLong(), 0, false)
			.balance(this.settings.ratio(), this.settings.minPerSecond()), false);
	}

	/**
	 * Return the retries allowed since start.
	 * @return the count
	 */
	public long allowed() {
		return this.allowed.sum();
	}

	/**
	 * Return the retries denied since start.
	 * @return the count
	 */
	public long denied() {
		return this.denied.sum();
	}

	// One line when the budget starts counting alone, one when it shares again.
	private void alone(RuntimeException ex) {
		if (!this.alone) {
			this.alone = true;
			logger.warn("Retry budget '{}' counts on this instance alone until Redis answers again ({})",
					this.settings.name(), LogText.oneLine(String.valueOf(ex.getMessage())));
		}
	}

	private void shared() {
		if (this.alone) {
			this.alone = false;
			logger.info("Retry budget '{}' counts across every instance again", this.settings.name());
		}
	}

	private long drain() {
		long firstAttempts = this.pending.getAndSet(0);
		if (firstAttempts > 0) {
			this.local.apply(this.clock.getAsLong(), firstAttempts, false);
		}
		return firstAttempts;
	}

	/**
	 * How many retries a budget allows now.
	 *
	 * @param retries the retries left
	 * @param shared whether every instance's count says so, rather than this instance's
	 * own while the store cannot answer
	 */
	public record Balance(long retries, boolean shared) {
	}

}
