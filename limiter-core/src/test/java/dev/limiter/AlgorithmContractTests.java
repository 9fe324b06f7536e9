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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.internal.Engines;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The promise of every {@link Algorithm}, run against each engine: random schedules
 * checked against each algorithm's {@link LimitOracle}, the algorithms' own behaviour,
 * limits of several algorithms on one call, usage queries and refunds.
 */
public abstract class AlgorithmContractTests {

	/**
	 * Create a limiter whose time is the given clock.
	 * @param clock the clock
	 * @param countRejected whether rejected calls are recorded
	 * @return the limiter
	 */
	protected abstract RateLimiter store(Clock clock, boolean countRejected);

	/**
	 * Return the engine's limiter on the test's time: leases of calls in flight are
	 * renewed when a test says so, never by the scheduler on the wall clock.
	 */
	private RateLimiter limiter(Clock clock, boolean countRejected) {
		RateLimiter limiter = store(clock, countRejected);
		Engines.of(limiter).leases().renewOnlyOnDemand();
		return limiter;
	}

	/**
	 * Create independent limiters over one store with the store's own clock.
	 * @param count how many
	 * @return the limiters
	 */
	protected abstract List<RateLimiter> instances(int count);

	private final MutableClock clock = MutableClock.startingNow();

	/**
	 * A window no test on the stores' own clocks sees end, fixed windows from the epoch
	 * included (they end every 10,000 days: in 2024, then in 2052).
	 */
	private static final Duration NO_END = Duration.ofDays(10_000);

	/**
	 * Return how many random schedules each schedule test runs: 1,000, or
	 * {@value RateLimiterContractTests#SCHEDULES_PROPERTY} when it asks for more.
	 * @return the number of schedules
	 */
	protected int schedules() {
		return Math.max(1_000, Integer.getInteger(RateLimiterContractTests.SCHEDULES_PROPERTY, 0));
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void randomSchedulesKeepTheAlgorithmsPromise(Algorithm algorithm) {
		assertThat(runSchedules((random) -> algorithm)).isEmpty();
	}

	@Test
	void randomSchedulesMixingAlgorithmsKeepEveryPromise() {
		Algorithm[] algorithms = AlgorithmDescriptor.stored().toArray(new Algorithm[0]);
		assertThat(runSchedules((random) -> algorithms[random.nextInt(algorithms.length)])).isEmpty();
	}

	/**
	 * Thresholds changed between calls (as an override or a refresh changes them): what
	 * was counted keeps counting under the new numbers, exactly as the oracle, which
	 * takes each change at the time of the next call, says.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void randomSchedulesWithChangingThresholdsKeepTheAlgorithmsPromise(Algorithm algorithm) {
		assertThat(runSchedules((random) -> algorithm, true)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void aLoweredThresholdRejectsACallerAlreadyOverItAndARaisedOneAdmitsAtOnce(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit ten = Limit.of("tiers", 10, Duration.ofHours(1)).withAlgorithm(algorithm);
		for (int i = 0; i < 8; i++) {
			assertThat(limiter.acquire("changed", ten).isAllowed()).isTrue();
		}
		Decision lowered = limiter.acquire("changed", ten.withThreshold(5));
		assertThat(lowered.isAllowed()).as("8 used, lowered to 5").isFalse();
		assertThat(lowered.remaining()).isZero();
		Decision raised = limiter.acquire("changed", ten.withThreshold(20));
		assertThat(raised.isAllowed()).as("8 used, raised to 20").isTrue();
		assertThat(raised.remaining()).isEqualTo(11);
		assertThat(limiter.usage("changed", List.of(ten)).get(0).used()).as("back at 10").isEqualTo(9);
	}

	/**
	 * Random schedules under limits with penalties: a limit that rejects refuses the key
	 * for its penalty from then, whatever its window holds, and says so in the
	 * retry-after; outside penalties every decision is the algorithm's, as the oracles
	 * say.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE, names = { "IN_FLIGHT", "ADAPTIVE" })
	void randomSchedulesWithPenaltiesRefuseForThePenaltyAndOtherwiseKeepTheAlgorithmsPromise(Algorithm algorithm) {
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules() / 4 && violations.isEmpty(); schedule++) {
			List<Limit> limits = new ArrayList<>();
			List<LimitOracle> oracles = new ArrayList<>();
			for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
				Limit limit = Limit.of("l" + i, 1 + random.nextInt(10), Duration.ofMillis(1 + random.nextInt(2_000)))
					.withAlgorithm(algorithm)
					.withSlices(1 + random.nextInt(30))
					.withPenalty(Duration.ofMillis(random.nextBoolean() ? 0 : 1 + random.nextInt(3_000)));
				if (limits.stream().noneMatch(limit::sameWindowAs)) {
					limits.add(limit);
					oracles.add(LimitOracle.of(limit));
				}
			}
			long[] penaltyEnds = new long[limits.size()];
			String key = "penalty-" + seed + "-" + schedule;
			for (int call = 0; call < 40 && violations.isEmpty(); call++) {
				this.clock.advance(Duration.ofNanos(random.nextInt(400_000) * 1_000L));
				Decision decision = limiter.acquire(key, 1, limits);
				long now = decision.decidedAtMicros();
				String where = "seed " + seed + ", schedule " + schedule + " " + limits + ", call " + call + " at "
						+ now + ": ";
				boolean fits = true;
				for (int i = 0; i < limits.size(); i++) {
					fits &= penaltyEnds[i] <= now && oracles.get(i).fits(now, 1);
				}
				if (decision.isAllowed() != fits) {
					violations.add(where + (fits ? "rejected" : "admitted") + ", the model says otherwise");
					break;
				}
				if (fits) {
					long remaining = Long.MAX_VALUE;
					for (LimitOracle oracle : oracles) {
						oracle.admit(now, 1);
						remaining = Math.min(remaining, oracle.remaining(now));
					}
					if (decision.remaining() != remaining) {
						violations.add(where + "remaining " + decision.remaining() + ", the model says " + remaining);
					}
					continue;
				}
				long expected = 0;
				for (int i = 0; i < limits.size(); i++) {
					long wait;
					if (penaltyEnds[i] > now) {
						wait = penaltyEnds[i] - now;
					}
					else if (!oracles.get(i).fits(now, 1)) {
						long penalty = limits.get(i).penaltyMicros();
						wait = Math.max(oracles.get(i).exactWait(now, 1), penalty);
						penaltyEnds[i] = (penalty > 0) ? now + penalty : 0;
					}
					else {
						continue;
					}
					expected = Math.max(expected, wait);
				}
				if (decision.retryAfter().toNanos() / 1_000 != expected) {
					violations.add(where + "retry-after " + decision.retryAfter() + ", expected " + expected + " µs");
				}
			}
		}
		assertThat(violations).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE, names = { "IN_FLIGHT", "ADAPTIVE" })
	void aPenaltyRefusesTheCallerUntilItEndsShowsInTheUsageAndAResetLiftsIt(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit login = Limit.of("login", 2, Duration.ofSeconds(1))
			.withAlgorithm(algorithm)
			.withPenalty(Duration.ofSeconds(10));
		String key = "penalty-" + algorithm + "-" + System.nanoTime();
		assertThat(limiter.acquire(key, login).isAllowed()).isTrue();
		assertThat(limiter.acquire(key, login).isAllowed()).isTrue();
		Decision rejected = limiter.acquire(key, login);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(10));
		this.clock.advance(Duration.ofSeconds(3));
		Decision refused = limiter.acquire(key, login);
		assertThat(refused.isAllowed()).as("the window is empty, the penalty runs").isFalse();
		assertThat(refused.retryAfter()).as("not lengthened by the first refusal").isEqualTo(Duration.ofSeconds(7));
		assertThat(refused.remaining()).isZero();
		Usage usage = limiter.usage(key, List.of(login)).get(0);
		assertThat(usage.penalty()).isEqualTo(Duration.ofSeconds(7));
		assertThat(usage.remaining()).isZero();
		assertThat(limiter.acquire(key + "-other", login).isAllowed()).as("another caller").isTrue();
		this.clock.advance(Duration.ofSeconds(7));
		assertThat(limiter.acquire(key, login).isAllowed()).as("the penalty has ended").isTrue();
		assertThat(limiter.acquire(key, login).isAllowed()).isTrue();
		assertThat(limiter.acquire(key, login).isAllowed()).as("a second penalty").isFalse();
		assertThat(limiter.usage(key, List.of(login)).get(0).penalty()).isEqualTo(Duration.ofSeconds(10));
		limiter.reset(key, List.of(login));
		assertThat(limiter.usage(key, List.of(login)).get(0).penalty()).isZero();
		assertThat(limiter.acquire(key, login).isAllowed()).as("a reset lifts the penalty").isTrue();
	}

	private List<String> runSchedules(java.util.function.Function<Random, Algorithm> algorithms) {
		return runSchedules(algorithms, false);
	}

	private List<String> runSchedules(java.util.function.Function<Random, Algorithm> algorithms,
			boolean changeThresholds) {
		int schedules = schedules();
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules && violations.isEmpty(); schedule++) {
			List<Limit> limits = new ArrayList<>();
			List<LimitOracle> oracles = new ArrayList<>();
			for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
				Limit limit = Limit.of("l" + i, 1 + random.nextInt(20), Duration.ofMillis(1 + random.nextInt(2_000)))
					.withAlgorithm(algorithms.apply(random))
					.withSlices(1 + random.nextInt(30));
				if (limits.stream().noneMatch(limit::sameWindowAs)) {
					limits.add(limit);
					oracles.add(LimitOracle.of(limit));
				}
			}
			long smallest = limits.stream().mapToLong(Limit::threshold).min().getAsLong();
			// the seed keeps the key apart from those of earlier tests, whose clocks ran
			// ahead
			String key = "schedule-" + seed + "-" + schedule;
			for (int call = 0; call < 40 && violations.isEmpty(); call++) {
				this.clock.advance(Duration.ofNanos(random.nextInt(400_000) * 1_000L));
				if (changeThresholds && random.nextInt(5) == 0) {
					long now = this.clock.instant().getEpochSecond() * 1_000_000
							+ this.clock.instant().getNano() / 1_000;
					int changed = random.nextInt(limits.size());
					Limit limit = limits.get(changed).withThreshold(1 + random.nextInt(20));
					limits.set(changed, limit);
					oracles.get(changed).retarget(limit, now);
					smallest = limits.stream().mapToLong(Limit::threshold).min().getAsLong();
				}
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) smallest) : 1;
				Decision decision = limiter.acquire(key, permits, limits);
				String where = "seed " + seed + ", schedule " + schedule + " " + limits + ", call " + call + ", "
						+ permits + " at " + decision.decidedAtMicros() + ": ";
				String violation = check(decision, permits, oracles);
				if (violation != null) {
					violations.add(where + violation);
				}
			}
		}
		return violations;
	}

	private static String check(Decision decision, long permits, List<LimitOracle> oracles) {
		return check(decision, permits, oracles, true);
	}

	/**
	 * Check a decision against the oracles, and the algorithms' promise when
	 * {@code promised} (charges break it on purpose).
	 */
	private static String check(Decision decision, long permits, List<LimitOracle> oracles, boolean promised) {
		long now = decision.decidedAtMicros();
		boolean fits = fitsAll(oracles, now, permits);
		if (decision.isAllowed() != fits) {
			return (decision.isAllowed() ? "admitted" : "rejected") + ", the model says otherwise";
		}
		if (!decision.isAllowed()) {
			long retry = decision.retryAfter().toNanos() / 1_000;
			if (oracles.stream().allMatch((oracle) -> oracle.waitCap() == Long.MAX_VALUE)) {
				if (!fitsAll(oracles, now + retry, permits) || fitsAll(oracles, now + retry - 1, permits)) {
					return "retry-after " + decision.retryAfter() + " is not the exact wait";
				}
				return null;
			}
			// a limit whose wait is a hint (calls in flight) names the sooner of the hint
			// and its exact wait; the limit that frees last decides
			long expected = 0;
			for (LimitOracle oracle : oracles) {
				expected = Math.max(expected, Math.min(oracle.exactWait(now, permits), oracle.waitCap()));
			}
			return (retry != expected) ? "retry-after " + decision.retryAfter() + ", expected " + expected + " µs"
					: null;
		}
		long remaining = Long.MAX_VALUE;
		for (LimitOracle oracle : oracles) {
			oracle.admit(now, permits);
			String broken = promised ? oracle.broken(now) : null;
			if (broken != null) {
				return broken;
			}
			remaining = Math.min(remaining, oracle.remaining(now));
		}
		return (decision.remaining() != remaining)
				? "remaining " + decision.remaining() + ", the model says " + remaining : null;
	}

	private static boolean fitsAll(List<LimitOracle> oracles, long now, long permits) {
		for (LimitOracle oracle : oracles) {
			if (!oracle.fits(now, permits)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Calls in flight on random schedules of calls that start, end (some twice, some
	 * after their lease ended), leases renewed and time passing: every decision, its
	 * remaining slots and its wait agree with the oracle, never more than N in flight,
	 * and a late end frees nothing of another call's.
	 */
	@Test
	void randomInFlightSchedulesKeepThePromise() {
		int schedules = schedules();
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules && violations.isEmpty(); schedule++) {
			Limit limit = Limit.of("calls", 1 + random.nextInt(6), Duration.ofMillis(100 + random.nextInt(2_000)))
				.withAlgorithm(Algorithm.IN_FLIGHT);
			LimitOracle.InFlight oracle = (LimitOracle.InFlight) LimitOracle.of(limit);
			String key = "flight-" + seed + "-" + schedule;
			List<Decision> running = new ArrayList<>();
			List<Integer> numbers = new ArrayList<>();
			for (int step = 0; step < 60 && violations.isEmpty(); step++) {
				this.clock.advance(Duration.ofNanos(random.nextInt((int) limit.periodMicros() / 2) * 1_000L));
				String where = "seed " + seed + ", schedule " + schedule + " " + limit + ", step " + step + ": ";
				int action = random.nextInt(10);
				if (action < 5 || running.isEmpty()) {
					long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) limit.threshold()) : 1;
					Decision decision = limiter.acquire(key, permits, List.of(limit));
					String violation = check(decision, permits, List.of(oracle));
					if (violation != null) {
						violations.add(where + violation);
					}
					if (decision.isAllowed()) {
						running.add(decision);
						numbers.add(oracle.calls() - 1);
					}
				}
				else if (action < 8) {
					int ending = random.nextInt(running.size());
					if (!limiter.finish(running.get(ending))) {
						violations.add(where + "the first end of a call gave nothing back");
					}
					if (limiter.finish(running.get(ending))) {
						violations.add(where + "a second end of a call gave something back");
					}
					oracle.end(numbers.get(ending));
					running.remove(ending);
					numbers.remove(ending);
				}
				else {
					Engines.of(limiter).leases().renewAll();
					oracle.renew(epochMicros());
				}
				long used = limiter.usage(key, List.of(limit)).get(0).used();
				long held = limit.threshold() - oracle.remaining(epochMicros());
				if (used != held) {
					violations.add(where + used + " in flight, the model says " + held);
				}
			}
			running.forEach(limiter::finish);
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void aCallInFlightKeepsItsSlotPastItsLeaseWhileRenewedAndAnEndedLeaseIsNotRevived() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit two = Limit.of("reports", 2, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Decision first = limiter.acquire("renewed", two);
		this.clock.advance(Duration.ofSeconds(20));
		Decision second = limiter.acquire("renewed", two);
		Decision third = limiter.acquire("renewed", two);
		assertThat(third.isAllowed()).as("two in flight").isFalse();
		assertThat(third.retryAfter()).as("a hint, not the 10 s until a lease ends").isEqualTo(Duration.ofMillis(250));
		assertThat(third.retryAfterSeconds()).isEqualTo(1);
		this.clock.advance(Duration.ofSeconds(20));
		Engines.of(limiter).leases().renewAll();
		// the first call's lease ended at 30 s unrenewed and stays ended; the second's
		// was renewed at 40 s, until 70 s
		assertThat(limiter.usage("renewed", List.of(two)).get(0).used()).isEqualTo(1);
		Decision fourth = limiter.acquire("renewed", two);
		assertThat(fourth.isAllowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(25));
		Engines.of(limiter).leases().renewAll();
		assertThat(limiter.acquire("renewed", two).isAllowed()).as("both renewed at 65 s").isFalse();
		// the first call ends late: its slot is long gone, and it frees nothing of others
		assertThat(limiter.finish(first)).isTrue();
		assertThat(limiter.usage("renewed", List.of(two)).get(0).used()).isEqualTo(2);
		assertThat(limiter.finish(second)).isTrue();
		assertThat(limiter.usage("renewed", List.of(two)).get(0).used()).isEqualTo(1);
		limiter.finish(fourth);
	}

	@Test
	void theLeasesOfCallsOnManyKeysAreRenewedTogether() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit one = Limit.of("one", 1, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		List<Decision> running = new ArrayList<>();
		for (int key = 0; key < 40; key++) {
			running.add(limiter.acquire("many-" + key, one));
		}
		this.clock.advance(Duration.ofSeconds(20));
		Engines.of(limiter).leases().renewAll();
		this.clock.advance(Duration.ofSeconds(20));
		for (int key = 0; key < 40; key++) {
			assertThat(limiter.acquire("many-" + key, one).isAllowed()).as("key %d renewed", key).isFalse();
		}
		running.forEach(limiter::finish);
		assertThat(limiter.acquire("many-7", one).isAllowed()).isTrue();
	}

	@Test
	void aRateLimitThatRejectsTakesNoSlotAndAnEndGivesBackOnlyTheSlot() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit inFlight = Limit.of("concurrent", 5, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Limit perMinute = Limit.of("rate", 2, Duration.ofMinutes(1));
		List<Limit> both = List.of(inFlight, perMinute);
		Decision first = limiter.acquire("both", 1, both);
		Decision second = limiter.acquire("both", 1, both);
		Decision third = limiter.acquire("both", 1, both);
		assertThat(third.isAllowed()).isFalse();
		assertThat(third.limit()).isEqualTo(perMinute);
		assertThat(limiter.usage("both", both)).extracting(Usage::used).containsExactly(2L, 2L);
		assertThat(limiter.finish(first)).isTrue();
		assertThat(limiter.finish(third)).as("a rejection").isFalse();
		assertThat(limiter.usage("both", both)).extracting(Usage::used).containsExactly(1L, 2L);
		assertThat(limiter.release(second)).as("a refund gives back the slot and the permit").isTrue();
		assertThat(limiter.finish(second)).as("the slot was given back by the refund").isFalse();
		assertThat(limiter.usage("both", both)).extracting(Usage::used).containsExactly(0L, 1L);
	}

	@Test
	void aRejectedCallThatCountsHoldsNoSlot() {
		RateLimiter limiter = limiter(this.clock, true);
		Limit one = Limit.of("one", 1, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Limit rate = Limit.of("rate", 1, Duration.ofMinutes(1));
		Decision running = limiter.acquire("counted", one);
		assertThat(limiter.acquire("counted", one).isAllowed()).isFalse();
		limiter.finish(running);
		assertThat(limiter.usage("counted", List.of(one)).get(0).used()).as("the rejection holds nothing").isZero();
		limiter.acquire("mixed", rate);
		assertThat(limiter.acquire("mixed", 1, List.of(one, rate)).isAllowed()).isFalse();
		assertThat(limiter.usage("mixed", List.of(one)).get(0).used()).as("rejected by the rate").isZero();
	}

	@Test
	void plansOfOneInFlightLimitCountTogetherUnderTheSharedKey() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit critical = Limit.of("reports", 10, Duration.ofSeconds(30)).withAlgorithm(Algorithm.IN_FLIGHT);
		Limit batch = critical.withThreshold(4);
		for (int i = 0; i < 4; i++) {
			assertThat(limiter.acquire("shared", batch).isAllowed()).isTrue();
		}
		assertThat(limiter.acquire("shared", batch).isAllowed()).as("batch shed at 4").isFalse();
		for (int i = 0; i < 6; i++) {
			assertThat(limiter.acquire("shared", critical).isAllowed()).isTrue();
		}
		assertThat(limiter.acquire("shared", critical).isAllowed()).as("critical full at 10").isFalse();
	}

	private long epochMicros() {
		return this.clock.instant().getEpochSecond() * 1_000_000 + this.clock.instant().getNano() / 1_000;
	}

	@Test
	void bucketsRejectAtMostOneSliceEarlyAndSayWhenExactly() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(10)).withAlgorithm(Algorithm.SLIDING_BUCKETS).withSlices(10);
		// slices start at whole seconds of the epoch: put the first calls half-way into
		// one
		this.clock.set(java.time.Instant.ofEpochSecond(this.clock.instant().getEpochSecond() + 1).plusMillis(500));
		assertThat(limiter.acquire("buckets", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("buckets", limit).isAllowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(5));
		Decision rejected = limiter.acquire("buckets", limit);
		assertThat(rejected.isAllowed()).isFalse();
		// The calls at 0.5s leave a log at 10.5s; their slice [0s, 1s) leaves at 11s.
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(5_500));
		assertThat(rejected.resetAfter()).isEqualTo(Duration.ofMillis(5_500));
		this.clock.advance(Duration.ofMillis(5_500).minusNanos(1_000));
		assertThat(limiter.acquire("buckets", limit).isAllowed()).as("one microsecond early").isFalse();
		this.clock.advance(Duration.ofNanos(1_000));
		Decision admitted = limiter.acquire("buckets", limit);
		assertThat(admitted.isAllowed()).isTrue();
		assertThat(admitted.remaining()).isEqualTo(1);
	}

	@Test
	void aTokenBucketAdmitsABurstThenOnePermitPerRefillInterval() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(4, Duration.ofSeconds(2)).withAlgorithm(Algorithm.TOKEN_BUCKET);
		for (int i = 0; i < 4; i++) {
			assertThat(limiter.acquire("bucket", limit).remaining()).isEqualTo(3 - i);
		}
		Decision rejected = limiter.acquire("bucket", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(500));
		assertThat(rejected.resetAfter()).isEqualTo(Duration.ofSeconds(2));
		this.clock.advance(Duration.ofMillis(499));
		assertThat(limiter.acquire("bucket", limit).isAllowed()).isFalse();
		this.clock.advance(Duration.ofMillis(1));
		assertThat(limiter.acquire("bucket", limit).isAllowed()).isTrue();
		Decision twoPermits = limiter.acquire("bucket", 2, List.of(limit));
		assertThat(twoPermits.isAllowed()).isFalse();
		assertThat(twoPermits.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(limiter.acquire("bucket", 2, List.of(limit)).isAllowed()).isTrue();
	}

	// a calendar's window forgets everything at its end, rejections counted or not
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE,
			names = { "CALENDAR", "IN_FLIGHT", "ADAPTIVE" })
	void rejectedCallsKeepAClientOutWhenCounted(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, true);
		Limit limit = Limit.of(2, Duration.ofSeconds(10)).withAlgorithm(algorithm).withSlices(10);
		limiter.acquire("abuser", limit);
		limiter.acquire("abuser", limit);
		for (int i = 0; i < 30; i++) {
			this.clock.advance(Duration.ofSeconds(1));
			assertThat(limiter.acquire("abuser", limit).isAllowed()).as("call %d", i).isFalse();
		}
		this.clock.advance(Duration.ofSeconds(11));
		assertThat(limiter.acquire("abuser", limit).isAllowed()).isTrue();
	}

	@Test
	void limitsOfDifferentAlgorithmsOnOneCallAreAllOrNothing() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit log = Limit.of("log", 5, Duration.ofSeconds(10));
		Limit buckets = Limit.of("buckets", 5, Duration.ofSeconds(10)).withAlgorithm(Algorithm.SLIDING_BUCKETS);
		Limit tokens = Limit.of("tokens", 2, Duration.ofSeconds(10)).withAlgorithm(Algorithm.TOKEN_BUCKET);
		List<Limit> limits = List.of(log, buckets, tokens);
		assertThat(limiter.acquire("mixed", 1, limits).isAllowed()).isTrue();
		Decision second = limiter.acquire("mixed", 1, limits);
		assertThat(second.isAllowed()).isTrue();
		assertThat(second.limit()).isEqualTo(tokens);
		assertThat(second.remaining()).isZero();
		Decision rejected = limiter.acquire("mixed", 1, limits);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.limit()).isEqualTo(tokens);
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(5));
		List<Usage> usage = limiter.usage("mixed", limits);
		assertThat(usage).extracting(Usage::used).containsExactly(2L, 2L, 2L);
		assertThat(usage).extracting(Usage::remaining).containsExactly(3L, 3L, 0L);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void usageReadsWithoutRecording(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(3, Duration.ofSeconds(60)).withAlgorithm(algorithm);
		List<Usage> before = limiter.usage("reader", List.of(limit));
		assertThat(before).singleElement().satisfies((usage) -> {
			assertThat(usage.limit()).isEqualTo(limit);
			assertThat(usage.used()).isZero();
			assertThat(usage.remaining()).isEqualTo(3);
			assertThat(usage.resetAfter()).isZero();
		});
		limiter.acquire("reader", 2, List.of(limit));
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.usage("reader", List.of(limit))).singleElement().satisfies((usage) -> {
				assertThat(usage.used()).isEqualTo(2);
				assertThat(usage.remaining()).isEqualTo(1);
				assertThat(usage.resetAfter()).isPositive();
				assertThat(usage.currentSlice()).isEqualTo((algorithm == Algorithm.SLIDING_BUCKETS) ? 2 : -1);
			});
		}
		assertThat(limiter.acquire("reader", limit).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void aReleasedDecisionGivesItsPermitsBackOnce(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(60)).withAlgorithm(algorithm);
		Decision first = limiter.acquire("refund", 2, List.of(limit));
		Decision rejected = limiter.acquire("refund", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(limiter.release(rejected)).as("a rejection").isFalse();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(limiter.release(first)).isTrue();
		assertThat(limiter.release(first)).as("twice").isFalse();
		assertThat(limiter.usage("refund", List.of(limit))).singleElement()
			.satisfies((usage) -> assertThat(usage.used()).isZero());
		assertThat(limiter.acquire("refund", 2, List.of(limit)).isAllowed()).isTrue();
		assertThat(limiter.acquire("refund", limit).isAllowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void aResetForgetsTheKeyUnderTheGivenLimitsOnly(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(60)).withAlgorithm(algorithm);
		Limit other = Limit.of(3, Duration.ofSeconds(61)).withAlgorithm(algorithm);
		limiter.acquire("reset", 2, List.of(limit, other));
		assertThat(limiter.acquire("reset", limit).isAllowed()).isFalse();
		limiter.reset("reset", List.of(limit));
		assertThat(limiter.usage("reset", List.of(limit, other))).extracting(Usage::used).containsExactly(0L, 2L);
		assertThat(limiter.acquire("reset", 2, List.of(limit)).isAllowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void concurrentBurstAcrossInstancesAdmitsExactlyTheThreshold(Algorithm algorithm) throws Exception {
		List<RateLimiter> instances = instances(2);
		Limit limit = Limit.of(137, NO_END).withAlgorithm(algorithm);
		ExecutorService executor = Executors.newFixedThreadPool(32);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Callable<Boolean>> tasks = new ArrayList<>();
			for (int i = 0; i < 600; i++) {
				RateLimiter instance = instances.get(i % instances.size());
				tasks.add(() -> {
					start.await();
					return instance.acquire("burst-" + algorithm, limit).isAllowed();
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

	/**
	 * Random concurrent schedules: random thresholds, slices and permits, callers racing
	 * on two instances. Within a window nothing leaves (one that never ends in a test),
	 * so every algorithm's promise is the same two bounds: the admitted permits never
	 * exceed the threshold, and a call of {@code p} permits is rejected only when at
	 * least {@code threshold - p + 1} were admitted, by then or later.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void randomConcurrentSchedulesNeitherOverAdmitNorRejectFalsely(Algorithm algorithm) throws Exception {
		List<RateLimiter> instances = instances(2);
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		int schedules = Math.max(20, schedules() / 50);
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			for (int schedule = 0; schedule < schedules; schedule++) {
				long threshold = 1 + random.nextInt(50);
				Limit limit = Limit.of("race", threshold, NO_END)
					.withAlgorithm(algorithm)
					.withSlices(1 + random.nextInt(60));
				String key = "race-" + algorithm + "-" + seed + "-" + schedule;
				int calls = 1 + random.nextInt((int) threshold * 3);
				long[] permits = new long[calls];
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Boolean>> answers = new ArrayList<>();
				for (int i = 0; i < calls; i++) {
					permits[i] = 1 + random.nextInt((int) Math.min(3, threshold));
					RateLimiter instance = instances.get(i % instances.size());
					long wanted = permits[i];
					answers.add(executor.submit(() -> {
						start.await();
						return instance.acquire(key, wanted, List.of(limit)).isAllowed();
					}));
				}
				start.countDown();
				long admitted = 0;
				long smallestRejected = Long.MAX_VALUE;
				for (int i = 0; i < calls; i++) {
					if (answers.get(i).get(30, TimeUnit.SECONDS)) {
						admitted += permits[i];
					}
					else {
						smallestRejected = Math.min(smallestRejected, permits[i]);
					}
				}
				String context = algorithm + ", seed " + seed + ", schedule " + schedule + ", threshold " + threshold
						+ ", " + calls + " calls";
				assertThat(admitted).as("admitted permits, " + context).isLessThanOrEqualTo(threshold);
				if (smallestRejected != Long.MAX_VALUE) {
					assertThat(admitted)
						.as("admitted permits despite a rejection of " + smallestRejected + ", " + context)
						.isGreaterThanOrEqualTo(threshold - smallestRejected + 1);
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Reserve, then settle: random schedules where admitted calls are charged more (past
	 * the threshold too) or less after they return, against the oracle. A charge breaks
	 * the window's promise on purpose, so what is checked is the agreement: every
	 * decision as the oracle, charges included, says, with the exact retry-after and
	 * remaining.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE,
			names = { "SLIDING_LOG", "IN_FLIGHT", "ADAPTIVE" })
	void randomChargedSchedulesAgreeWithTheOracle(Algorithm algorithm) {
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules() / 2 && violations.isEmpty(); schedule++) {
			List<Limit> limits = new ArrayList<>();
			List<LimitOracle> oracles = new ArrayList<>();
			for (int i = 0, count = 1 + random.nextInt(2); i < count; i++) {
				Limit limit = Limit.of("l" + i, 1 + random.nextInt(20), Duration.ofMillis(1 + random.nextInt(2_000)))
					.withAlgorithm(algorithm)
					.withSlices(1 + random.nextInt(30));
				if (limits.stream().noneMatch(limit::sameWindowAs)) {
					limits.add(limit);
					oracles.add(LimitOracle.of(limit));
				}
			}
			long smallest = limits.stream().mapToLong(Limit::threshold).min().getAsLong();
			String key = "charged-" + seed + "-" + schedule;
			for (int call = 0; call < 40 && violations.isEmpty(); call++) {
				this.clock.advance(Duration.ofNanos(random.nextInt(300_000) * 1_000L));
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) smallest) : 1;
				Decision decision = limiter.acquire(key, permits, limits);
				String where = "seed " + seed + ", schedule " + schedule + " " + limits + ", call " + call + ", ";
				String violation = check(decision, permits, oracles, false);
				if (violation == null && decision.isAllowed() && random.nextBoolean()) {
					this.clock.advance(Duration.ofNanos(random.nextInt(100_000) * 1_000L));
					long more = -permits + random.nextInt((int) (permits + 2 * smallest + 1));
					Decision charged = limiter.charge(decision, more);
					long now = charged.decidedAtMicros();
					long remaining = Long.MAX_VALUE;
					for (LimitOracle oracle : oracles) {
						oracle.charge(now, decision.decidedAtMicros(), more);
						remaining = Math.min(remaining, Math.max(0, oracle.remaining(now)));
					}
					if (more != 0 && (!charged.isAllowed() || charged.remaining() != remaining)) {
						violation = "charged " + more + " at " + now + ": remaining " + charged.remaining()
								+ ", the model says " + remaining;
					}
				}
				if (violation != null) {
					violations.add(where + permits + " at " + decision.decidedAtMicros() + ": " + violation);
				}
			}
		}
		assertThat(violations).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE,
			names = { "SLIDING_LOG", "IN_FLIGHT", "ADAPTIVE" })
	void aChargePastTheThresholdRejectsUntilTheWindowHasRoomAndALowerOneGivesBack(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of("tokens", 1_000, Duration.ofHours(1)).withAlgorithm(algorithm);
		this.clock.set(java.time.Instant.parse("2026-11-24T10:00:00Z"));
		Decision first = limiter.acquire("budget", limit);
		Decision afterFirst = limiter.charge(first, 599);
		assertThat(afterFirst.isAllowed()).isTrue();
		assertThat(afterFirst.remaining()).isEqualTo(400);
		Decision second = limiter.acquire("budget", limit);
		assertThat(second.isAllowed()).as("400 left").isTrue();
		Decision afterSecond = limiter.charge(second, 599);
		assertThat(afterSecond.remaining()).as("past the budget").isZero();
		assertThat(limiter.usage("budget", List.of(limit))).singleElement()
			.satisfies((usage) -> assertThat(usage.used()).isEqualTo(1_200));
		Decision rejected = limiter.acquire("budget", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).isPositive();
		this.clock.advance(rejected.retryAfter());
		assertThat(limiter.acquire("budget", limit).isAllowed()).as("after the retry-after").isTrue();
		Decision small = limiter.acquire("small", 5, List.of(limit));
		assertThat(limiter.charge(small, -3).remaining()).as("less is given back").isEqualTo(998);
		assertThat(limiter.charge(small, -50).remaining()).as("never more than the reservation").isEqualTo(1_000);
		assertThat(limiter.charge(limiter.acquire("small", 1_000, List.of(limit)), 0).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = EnumSource.Mode.EXCLUDE,
			names = { "SLIDING_LOG", "IN_FLIGHT", "ADAPTIVE" })
	void aHugeChargeExhaustsTheWindowWithoutOverflowing(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of("tokens", 1_000, Duration.ofHours(1)).withAlgorithm(algorithm);
		this.clock.set(java.time.Instant.parse("2026-11-24T10:00:00Z"));
		for (long huge : new long[] { Long.MAX_VALUE, Long.MAX_VALUE / 2, Integer.MAX_VALUE * 10L }) {
			String key = "huge-" + huge;
			Decision charged = limiter.charge(limiter.acquire(key, limit), huge);
			assertThat(charged.remaining()).as("%s: nothing left", huge).isZero();
			Decision next = limiter.acquire(key, limit);
			assertThat(next.isAllowed()).as("%s: no overflow back to room", huge).isFalse();
			assertThat(next.retryAfter()).as("%s: a wait the caller can read", huge)
				.isPositive()
				.isLessThanOrEqualTo(Duration.ofDays(36_500));
			assertThat(limiter.charge(limiter.acquire(key + "-again", limit), -huge).remaining())
				.as("%s: a huge give-back returns at most the reservation", huge)
				.isEqualTo(1_000);
		}
	}

	@Test
	void aChargeUnderTheSlidingLogIsRefusedAndARejectionIsNotCharged() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit log = Limit.of("log", 2, Duration.ofMinutes(1));
		Decision admitted = limiter.acquire("log", log);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.charge(admitted, 10))
			.withMessageContaining("sliding log");
		Decision inFlight = limiter.acquire("flight", log.withAlgorithm(Algorithm.IN_FLIGHT));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.charge(inFlight, 10))
			.withMessageContaining("in-flight limit");
		limiter.finish(inFlight);
		Limit buckets = log.withAlgorithm(Algorithm.SLIDING_BUCKETS);
		limiter.acquire("full", 2, List.of(buckets));
		Decision rejected = limiter.acquire("full", buckets);
		assertThat(limiter.charge(rejected, 10)).isSameAs(rejected);
		assertThat(limiter.usage("full", List.of(buckets)).get(0).used()).isEqualTo(2);
	}

	@Test
	void aChargeOfSeveralLimitsCountsUnderAllOfThemAndTheAsyncFormAgrees() throws Exception {
		RateLimiter limiter = limiter(this.clock, false);
		Limit minute = Limit.of("minute", 100, Duration.ofMinutes(1)).withAlgorithm(Algorithm.TOKEN_BUCKET);
		Limit day = Limit.of("day", 1_000, Duration.ofSeconds(1))
			.withCalendar(java.time.temporal.ChronoUnit.DAYS, java.time.ZoneId.of("Europe/Berlin"));
		Decision decision = limiter.acquire("both", 1, List.of(minute, day));
		Decision charged = limiter.chargeAsync(decision, 149).get(5, TimeUnit.SECONDS);
		assertThat(charged.remaining()).isZero();
		assertThat(charged.limit()).isEqualTo(minute);
		assertThat(limiter.usage("both", List.of(minute, day))).extracting(Usage::used).containsExactly(150L, 150L);
	}

	/**
	 * A call counted from when it was done rather than from its turn: its permits leave
	 * the window a window after that moment, the others as before.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "SLIDING_LOG", "SLIDING_BUCKETS" })
	void aDecisionMovedToNowCountsFromThenAndARefundedOneIsNotCountedAgain(Algorithm algorithm) {
		RateLimiter limiter = limiter(this.clock, false);
		RateLimiter moving = limiter;
		Limit limit = Limit.of(2, Duration.ofSeconds(10)).withAlgorithm(algorithm).withSlices(10);
		this.clock.set(java.time.Instant.parse("2026-11-24T10:00:00Z"));
		Decision first = limiter.acquire("moved", limit);
		limiter.acquire("moved", limit);
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(moving.moveToNow(first)).isTrue();
		// 11 s: the unmoved permit left (buckets count its 1 s slice until then)
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(limiter.acquire("moved", limit).isAllowed()).as("the unmoved permit left").isTrue();
		Decision rejected = limiter.acquire("moved", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).as("the moved one leaves a window after it was moved")
			.isEqualTo(Duration.ofSeconds((algorithm == Algorithm.SLIDING_LOG) ? 4 : 5));
		Decision refunded = limiter.acquire("other", limit);
		limiter.release(refunded);
		assertThat(moving.moveToNow(refunded)).isFalse();
		assertThat(limiter.usage("other", List.of(limit)).get(0).used()).isZero();
	}

	/**
	 * Random schedules of calendar limits in zones with daylight-saving changes, around
	 * those changes and month ends (leap years too), against the oracle, which names each
	 * window from the zone's calendar instead of drawing boundaries.
	 */
	@Test
	void randomCalendarSchedulesKeepThePromiseAcrossZonesChangesAndMonthEnds() {
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		RateLimiter limiter = limiter(this.clock, false);
		String[] zones = { "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata" };
		java.time.temporal.ChronoUnit[] units = { java.time.temporal.ChronoUnit.MINUTES,
				java.time.temporal.ChronoUnit.HOURS, java.time.temporal.ChronoUnit.DAYS,
				java.time.temporal.ChronoUnit.WEEKS, java.time.temporal.ChronoUnit.MONTHS };
		// the spring and autumn changes of 2026 in Berlin and New York, a leap day, a
		// year
		// end
		java.time.Instant[] moments = { java.time.Instant.parse("2026-03-29T01:00:00Z"),
				java.time.Instant.parse("2026-10-25T01:00:00Z"), java.time.Instant.parse("2026-03-08T07:00:00Z"),
				java.time.Instant.parse("2026-11-01T06:00:00Z"), java.time.Instant.parse("2028-02-29T12:00:00Z"),
				java.time.Instant.parse("2026-12-31T23:00:00Z"), java.time.Instant.parse("2026-04-05T15:30:00Z") };
		List<String> violations = new ArrayList<>();
		for (int schedule = 0; schedule < schedules() / 5 && violations.isEmpty(); schedule++) {
			java.time.temporal.ChronoUnit unit = units[random.nextInt(units.length)];
			Limit limit = Limit.of("calendar", 1 + random.nextInt(20), Duration.ofMinutes(1))
				.withCalendar(unit, java.time.ZoneId.of(zones[random.nextInt(zones.length)]));
			LimitOracle oracle = LimitOracle.of(limit);
			long span = Math.min(unit.getDuration().toMillis(), Duration.ofDays(1).toMillis()) / 4;
			this.clock.set(moments[random.nextInt(moments.length)]
				.minusMillis(span + (long) (random.nextDouble() * span * 2)));
			String key = "calendar-" + seed + "-" + schedule;
			for (int call = 0; call < 40 && violations.isEmpty(); call++) {
				this.clock.advance(Duration.ofMillis((long) (random.nextDouble() * span / 4)));
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) limit.threshold()) : 1;
				Decision decision = limiter.acquire(key, permits, List.of(limit));
				String violation = check(decision, permits, List.of(oracle));
				if (violation != null) {
					violations.add("seed " + seed + ", schedule " + schedule + " " + limit + ", call " + call + ", "
							+ permits + " at " + decision.decidedAtMicros() + ": " + violation);
				}
			}
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void aCalendarMinuteResetsAtTheMinutesBoundaryAndSaysWhenExactly() {
		RateLimiter limiter = limiter(this.clock, false);
		Limit limit = Limit.of(2, Duration.ofSeconds(1)).withCalendar(java.time.temporal.ChronoUnit.MINUTES, null);
		this.clock.set(java.time.Instant.parse("2026-11-24T10:15:42.250Z"));
		assertThat(limiter.acquire("minute", 2, List.of(limit)).isAllowed()).isTrue();
		Decision rejected = limiter.acquire("minute", limit);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(17_750));
		assertThat(rejected.resetAfter()).isEqualTo(Duration.ofMillis(17_750));
		this.clock.set(java.time.Instant.parse("2026-11-24T10:15:59.999999Z"));
		assertThat(limiter.acquire("minute", limit).isAllowed()).as("a microsecond before the boundary").isFalse();
		this.clock.set(java.time.Instant.parse("2026-11-24T10:16:00Z"));
		Decision next = limiter.acquire("minute", limit);
		assertThat(next.isAllowed()).isTrue();
		assertThat(next.remaining()).isEqualTo(1);
	}

	@Test
	void aCalendarDayInBerlinLasts23HoursOnTheSpringChangeAndRetryAfterIsTheNextMidnight() {
		RateLimiter limiter = limiter(this.clock, false);
		java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
		Limit limit = Limit.of(1, Duration.ofSeconds(1)).withCalendar(java.time.temporal.ChronoUnit.DAYS, berlin);
		// 00:30 on the day the clocks go from 02:00 to 03:00
		this.clock.set(java.time.ZonedDateTime.of(2026, 3, 29, 0, 30, 0, 0, berlin).toInstant());
		assertThat(limiter.acquire("dst", limit).isAllowed()).isTrue();
		Decision rejected = limiter.acquire("dst", limit);
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofHours(22).plusMinutes(30));
		this.clock.set(java.time.ZonedDateTime.of(2026, 3, 30, 0, 0, 0, 0, berlin).toInstant());
		assertThat(limiter.acquire("dst", limit).isAllowed()).isTrue();
	}

	@Test
	void aCalendarMonthEndsOnTheFirstOfTheNextInItsZone() {
		RateLimiter limiter = limiter(this.clock, false);
		java.time.ZoneId newYork = java.time.ZoneId.of("America/New_York");
		Limit limit = Limit.of(1, Duration.ofSeconds(1)).withCalendar(java.time.temporal.ChronoUnit.MONTHS, newYork);
		// 23:00 on 29 February 2028 in New York is already March in UTC
		this.clock.set(java.time.ZonedDateTime.of(2028, 2, 29, 23, 0, 0, 0, newYork).toInstant());
		assertThat(limiter.acquire("month", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("month", limit).retryAfter()).isEqualTo(Duration.ofHours(1));
	}

}
