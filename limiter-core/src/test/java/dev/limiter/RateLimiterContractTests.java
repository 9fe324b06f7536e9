package dev.limiter;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour every {@link RateLimiter} implementation guarantees, run against each
 * one.
 */
public abstract class RateLimiterContractTests {

	/**
	 * Create a limiter whose time is the given clock.
	 * @param clock the clock
	 * @param countRejected whether rejected calls are recorded
	 * @return the limiter
	 */
	protected abstract RateLimiter limiter(Clock clock, boolean countRejected);

	/**
	 * Create independent limiters over one store with the store's own clock, like several
	 * instances of an application.
	 * @param count how many
	 * @return the limiters
	 */
	protected abstract List<RateLimiter> instances(int count);

	/** The system property that sets how many random schedules a run checks. */
	public static final String SCHEDULES_PROPERTY = "limiter.test.schedules";

	private final MutableClock clock = MutableClock.startingNow();

	@Test
	void admitsUpToThresholdThenRejects() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(30));
		Decision first = limiter.acquire("alice", limit);
		Decision second = limiter.acquire("alice", limit);
		Decision third = limiter.acquire("alice", limit);
		assertThat(first.isAllowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(1);
		assertThat(first.resetAfter()).isEqualTo(Duration.ofSeconds(30));
		assertThat(second.isAllowed()).isTrue();
		assertThat(second.remaining()).isZero();
		assertThat(third.isAllowed()).isFalse();
		assertThat(third.remaining()).isZero();
		assertThat(third.limit()).isEqualTo(limit);
		assertThat(third.retryAfter()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void keysAreIndependent() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(1, Duration.ofSeconds(30));
		assertThat(limiter.acquire("alice", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("alice", limit).isAllowed()).isFalse();
		assertThat(limiter.acquire("bob", limit).isAllowed()).isTrue();
	}

	@Test
	void callsInTheSameMicrosecondAreAllCounted() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(100, Duration.ofSeconds(1));
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.acquire("same-instant", limit).isAllowed()).as("call %d", i + 1).isTrue();
		}
		assertThat(limiter.acquire("same-instant", limit).isAllowed()).isFalse();
	}

	@Test
	void permitsAreCountedAsSeveralCalls() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(10, Duration.ofSeconds(1));
		assertThat(limiter.acquire("bulk", 7, List.of(limit)).remaining()).isEqualTo(3);
		Decision rejected = limiter.acquire("bulk", 4, List.of(limit));
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.remaining()).isEqualTo(3);
		assertThat(limiter.acquire("bulk", 3, List.of(limit)).isAllowed()).isTrue();
	}

	@Test
	void slidesInsteadOfResettingAtFixedBoundaries() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(10));
		assertThat(limiter.acquire("slide", limit).isAllowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(limiter.acquire("slide", limit).isAllowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(3));
		Decision rejected = limiter.acquire("slide", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(rejected.resetAfter()).isEqualTo(Duration.ofSeconds(7));
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(limiter.acquire("slide", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("slide", limit).isAllowed()).isFalse();
	}

	@Test
	void retryAfterIsExact() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(3, Duration.ofMillis(1_500));
		limiter.acquire("exact", limit);
		this.clock.advance(Duration.ofNanos(123_000));
		limiter.acquire("exact", limit);
		this.clock.advance(Duration.ofMillis(700));
		limiter.acquire("exact", limit);
		this.clock.advance(Duration.ofMillis(10));
		Decision rejected = limiter.acquire("exact", limit);
		assertThat(rejected.isAllowed()).isFalse();
		Duration retryAfter = rejected.retryAfter();
		assertThat(retryAfter).isEqualTo(Duration.ofMillis(1_500).minusNanos(710_123_000));
		this.clock.advance(retryAfter.minusNanos(1_000));
		assertThat(limiter.acquire("exact", limit).isAllowed()).as("one microsecond early").isFalse();
		this.clock.advance(Duration.ofNanos(1_000));
		assertThat(limiter.acquire("exact", limit).isAllowed()).as("at retry-after").isTrue();
	}

	@Test
	void retryAfterForSeveralPermitsWaitsForEnoughEntries() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(4, Duration.ofSeconds(10));
		for (int i = 0; i < 4; i++) {
			limiter.acquire("permits", limit);
			this.clock.advance(Duration.ofSeconds(1));
		}
		Decision rejected = limiter.acquire("permits", 3, List.of(limit));
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(8));
		this.clock.advance(Duration.ofSeconds(8).minusNanos(1_000));
		assertThat(limiter.acquire("permits", 3, List.of(limit)).isAllowed()).isFalse();
		this.clock.advance(Duration.ofNanos(1_000));
		assertThat(limiter.acquire("permits", 3, List.of(limit)).isAllowed()).isTrue();
	}

	@Test
	void severalLimitsAreAllOrNothing() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit burst = Limit.of(3, Duration.ofSeconds(1)).named("burst");
		Limit sustained = Limit.of(5, Duration.ofSeconds(10)).named("sustained");
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.acquire("both", burst, sustained).isAllowed()).isTrue();
		}
		Decision rejectedByBurst = limiter.acquire("both", burst, sustained);
		assertThat(rejectedByBurst.isAllowed()).isFalse();
		assertThat(rejectedByBurst.limit()).isEqualTo(burst);
		this.clock.advance(Duration.ofSeconds(1));
		// The rejected call consumed nothing under the sustained limit: 2 of 5 are left.
		Decision fourth = limiter.acquire("both", burst, sustained);
		assertThat(fourth.isAllowed()).isTrue();
		assertThat(fourth.remaining()).isEqualTo(1);
		assertThat(fourth.limit()).isEqualTo(sustained);
		assertThat(limiter.acquire("both", burst, sustained).isAllowed()).isTrue();
		Decision rejectedBySustained = limiter.acquire("both", burst, sustained);
		assertThat(rejectedBySustained.isAllowed()).isFalse();
		assertThat(rejectedBySustained.limit()).isEqualTo(sustained);
		assertThat(rejectedBySustained.retryAfter()).isEqualTo(Duration.ofSeconds(9));
	}

	@Test
	void rejectionWaitsForTheLimitThatFreesUpLast() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit shortLimit = Limit.of(1, Duration.ofSeconds(1));
		Limit longLimit = Limit.of(1, Duration.ofSeconds(60));
		limiter.acquire("last", shortLimit, longLimit);
		Decision rejected = limiter.acquire("last", shortLimit, longLimit);
		assertThat(rejected.limit()).isEqualTo(longLimit);
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void rejectedCallsAreNotRecordedByDefault() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(10));
		limiter.acquire("patient", limit);
		limiter.acquire("patient", limit);
		for (int i = 0; i < 9; i++) {
			this.clock.advance(Duration.ofSeconds(1));
			assertThat(limiter.acquire("patient", limit).isAllowed()).isFalse();
		}
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(limiter.acquire("patient", limit).isAllowed()).isTrue();
	}

	@Test
	void rejectedCallsKeepAClientOutWhenCounted() {
		RateLimiter limiter = limiter(this.clock, true);
		Limit limit = Limit.of(2, Duration.ofSeconds(10));
		limiter.acquire("abuser", limit);
		limiter.acquire("abuser", limit);
		for (int i = 0; i < 30; i++) {
			this.clock.advance(Duration.ofSeconds(1));
			Decision decision = limiter.acquire("abuser", limit);
			assertThat(decision.isAllowed()).isFalse();
			assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(9));
		}
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(limiter.acquire("abuser", limit).isAllowed()).isTrue();
	}

	@Test
	void randomArrivalsNeverExceedTheLimitAndAreNeverFalselyRejected() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(5, Duration.ofMillis(1_000));
		Random random = new Random(42);
		SlidingWindowOracle oracle = new SlidingWindowOracle(limit);
		for (int i = 0; i < 2_000; i++) {
			this.clock.advance(Duration.ofNanos(random.nextInt(400_000) * 1_000L));
			long permits = 1 + random.nextInt(2);
			Decision decision = limiter.acquire("random", permits, List.of(limit));
			oracle.check(decision.decidedAtMicros(), permits, decision.isAllowed());
		}
		assertThat(oracle.admitted()).isGreaterThan(1_000);
		assertThat(oracle.violations()).isEmpty();
	}

	/**
	 * Random schedules, each on a key of its own: one to three limits of random
	 * thresholds and windows, random permits and gaps. Every decision is checked against
	 * the definition: admitted only if every limit's window keeps within its threshold,
	 * rejected only if one would not. {@value #SCHEDULES_PROPERTY} sets how many (the
	 * {@code nightly} Maven profile runs 10,000).
	 */
	@Test
	void randomSchedulesAreCheckedAgainstTheOracle() {
		int schedules = Integer.getInteger(SCHEDULES_PROPERTY, 100);
		long seed = Long.getLong(SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules && violations.isEmpty(); schedule++) {
			List<Limit> limits = new ArrayList<>();
			for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
				limits.add(Limit.of(1 + random.nextInt(20), Duration.ofMillis(1 + random.nextInt(2_000))));
			}
			long smallest = limits.stream().mapToLong(Limit::threshold).min().getAsLong();
			List<long[]> admitted = new ArrayList<>();
			for (int call = 0; call < 40; call++) {
				this.clock.advance(Duration.ofNanos(random.nextInt(400_000) * 1_000L));
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) smallest) : 1;
				// the seed keeps the key apart from those of earlier tests, whose clocks
				// ran
				// ahead
				Decision decision = limiter.acquire("schedule-" + seed + "-" + schedule, permits, limits);
				long now = decision.decidedAtMicros();
				boolean fits = true;
				for (Limit limit : limits) {
					long inWindow = 0;
					for (long[] entry : admitted) {
						inWindow += (entry[0] > now - limit.periodMicros()) ? entry[1] : 0;
					}
					fits &= inWindow + permits <= limit.threshold();
				}
				if (decision.isAllowed() != fits) {
					violations.add("seed " + seed + ", schedule " + schedule + " " + limits + ", call " + call + ": "
							+ (decision.isAllowed() ? "admitted" : "rejected") + " " + permits + " at " + now);
				}
				if (decision.isAllowed()) {
					admitted.add(new long[] { now, permits });
				}
			}
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void concurrentBurstAcrossInstancesAdmitsExactlyTheThreshold() throws Exception {
		List<RateLimiter> instances = instances(2);
		Limit limit = Limit.of(137, Duration.ofMinutes(1));
		int calls = 1_000;
		ExecutorService executor = Executors.newFixedThreadPool(32);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Callable<Boolean>> tasks = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				RateLimiter instance = instances.get(i % instances.size());
				tasks.add(() -> {
					start.await();
					return instance.acquire("burst", limit).isAllowed();
				});
			}
			List<Future<Boolean>> futures = new ArrayList<>();
			for (Callable<Boolean> task : tasks) {
				futures.add(executor.submit(task));
			}
			start.countDown();
			int admitted = 0;
			for (Future<Boolean> future : futures) {
				admitted += future.get(30, TimeUnit.SECONDS) ? 1 : 0;
			}
			assertThat(admitted).isEqualTo(137);
		}
		finally {
			executor.shutdownNow();
		}
	}

}
