package dev.limiter.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.BootRedisAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads calling one key under one limit as fast as they can, through a failover. Kept:
 * the Redis time of every admission decided by Redis (the oracle's input: at most N in
 * any window of W), and counters for the rest, so that millions of fail-open calls cost
 * no memory.
 */
final class FailoverLoad {

	static final String KEY = "failover-key";

	private final RateLimiter limiter;

	private final Limit limit;

	private final int threads;

	private final ConcurrentLinkedQueue<Long> admittedAtMicros = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicLong calls = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final AtomicLong degradedAdmissions = new AtomicLong();

	private final AtomicLong slowestNanos = new AtomicLong();

	/** When the last call not decided by Redis started, and when it ended. */
	private final AtomicLong lastUnexactStart = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong lastUnexactEnd = new AtomicLong(Long.MIN_VALUE);

	private final CountDownLatch stopped;

	/**
	 * Return the application these tests run: Spring Boot's Redis auto-configuration and
	 * the starter, the limiter's timeout at 200 ms, and every call going to Redis (the
	 * rejection cache would answer most of them).
	 * @param redisProperties how the application finds Redis, as
	 * {@code spring.data.redis.*} properties
	 */
	static ApplicationContextRunner application(String... redisProperties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootRedisAutoConfiguration.type(), LimiterAutoConfiguration.class))
			.withPropertyValues(redisProperties)
			.withPropertyValues("limiter.timeout=200ms", "limiter.rejection-cache.enabled=false");
	}

	FailoverLoad(RateLimiter limiter, Limit limit, int threads) {
		this.limiter = limiter;
		this.limit = limit;
		this.threads = threads;
		this.stopped = new CountDownLatch(threads);
	}

	void start() {
		for (int i = 0; i < this.threads; i++) {
			new Thread(this::run, "failover-load-" + i).start();
		}
	}

	private void run() {
		try {
			while (this.running.get()) {
				long start = System.nanoTime();
				Decision decision = null;
				try {
					decision = this.limiter.acquire(KEY, 1, List.of(this.limit));
				}
				catch (RuntimeException ex) {
					this.errors.incrementAndGet();
				}
				long end = System.nanoTime();
				this.calls.incrementAndGet();
				this.slowestNanos.accumulateAndGet(end - start, Math::max);
				if (decision == null || decision.isDegraded()) {
					this.lastUnexactStart.accumulateAndGet(start, Math::max);
					this.lastUnexactEnd.accumulateAndGet(end, Math::max);
					if (decision != null && decision.isAllowed()) {
						this.degradedAdmissions.incrementAndGet();
					}
				}
				else if (decision.isAllowed()) {
					this.admittedAtMicros.add(decision.decidedAtMicros());
				}
			}
		}
		finally {
			this.stopped.countDown();
		}
	}

	/** Let the load run for a while: the length of the workload, not a wait for it. */
	void runFor(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() < end) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
		assertThat(this.admittedAtMicros).as("admissions decided by Redis").isNotEmpty();
	}

	/**
	 * Wait until every call of the last {@code span} was decided by Redis, counting from
	 * no earlier than {@code from} (when the fault can first show).
	 */
	void awaitExactFor(long from, Duration span, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			long lastUnexact = Math.max(this.lastUnexactStart.get(), from);
			if (System.nanoTime() - lastUnexact > span.toNanos()) {
				return;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
	}

	void stop() throws InterruptedException {
		this.running.set(false);
		this.stopped.await(10, TimeUnit.SECONDS);
	}

	/**
	 * Return the figures of the run, times counted from the fault.
	 * @param faultAt when the fault happened, in {@link System#nanoTime()}
	 */
	Figures figures(long faultAt) {
		long[] times = this.admittedAtMicros.stream().mapToLong(Long::longValue).sorted().toArray();
		long most = mostInAnyWindow(times, this.limit.period().toNanos() / 1_000);
		long lastUnexact = this.lastUnexactEnd.get();
		long exactAfter = (lastUnexact == Long.MIN_VALUE) ? 0 : Math.max(0, lastUnexact - faultAt);
		return new Figures(this.calls.get(), this.errors.get(), this.degradedAdmissions.get(),
				TimeUnit.NANOSECONDS.toMillis(this.slowestNanos.get()), TimeUnit.NANOSECONDS.toMillis(exactAfter), most,
				Math.max(0, most - this.limit.threshold()));
	}

	/**
	 * Return the most admissions in any window: the exact oracle of a sliding window.
	 * @param sortedMicros the admissions' times, sorted
	 * @param windowMicros the window
	 */
	static long mostInAnyWindow(long[] sortedMicros, long windowMicros) {
		long most = 0;
		int from = 0;
		for (int to = 0; to < sortedMicros.length; to++) {
			while (sortedMicros[to] - sortedMicros[from] >= windowMicros) {
				from++;
			}
			most = Math.max(most, to - from + 1);
		}
		return most;
	}

	/**
	 * What a failover did to the callers.
	 *
	 * @param calls every call
	 * @param errors calls that ended in an exception
	 * @param degradedAdmissions calls admitted without Redis, by the failure policy
	 * @param slowestMillis the slowest call
	 * @param exactAfterMillis when the last call not decided by Redis ended, after the
	 * fault
	 * @param mostInAWindow the most admissions decided by Redis in any window, by Redis's
	 * clock
	 * @param overAdmission how many of those were above the threshold
	 */
	record Figures(long calls, long errors, long degradedAdmissions, long slowestMillis, long exactAfterMillis,
			long mostInAWindow, long overAdmission) {

		/**
		 * Assert what a failover must keep: no exception reaches a caller, no call waits
		 * long, Redis decides again, and what the old master took with it is at most one
		 * window's threshold.
		 */
		void assertCalm(Limit limit) {
			assertThat(this.errors).as("exceptions that reached a caller").isZero();
			assertThat(this.slowestMillis).as("slowest call, ms").isLessThan(2_000);
			assertThat(this.exactAfterMillis).as("time until exact again, ms").isLessThan(60_000);
			assertThat(this.overAdmission).as("over-admission").isLessThanOrEqualTo(limit.threshold());
		}

		String describe(Limit limit) {
			return String.format(
					"exact again %d ms after the fault; slowest call %d ms; %d calls, %d errors, %d admitted without "
							+ "Redis; over-admission %d (most admitted in any %s window: %d of %d)",
					this.exactAfterMillis, this.slowestMillis, this.calls, this.errors, this.degradedAdmissions,
					this.overAdmission, limit.period(), this.mostInAWindow, limit.threshold());
		}

	}

}
