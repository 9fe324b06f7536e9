package dev.limiter.store;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.limits.LimitOverrides;
import dev.limiter.internal.limits.LimitOverrides.NamedOverride;
import dev.limiter.internal.limits.LimitOverrides.Numbers;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.test.RedisSentinels;
import dev.limiter.store.SoakSamples.Sample;
import dev.limiter.test.RedisServer;

import static dev.limiter.store.SoakSamples.minutes;
import static dev.limiter.store.SoakSamples.sleepUntil;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A soak: two instances of the starter on one replicated Redis under Sentinel, at a
 * steady load over 50 keys for {@code limiter.soak.minutes} (30 by default), while the
 * replica is restarted, the master is killed and fails over, and the former master is
 * restarted. Sampled every thirtieth of the run: the heap after a full GC, the live
 * threads, Redis's used memory and key count. At the end, the admissions Redis decided,
 * by its clock, against the exact oracle. Beside the load: a call in flight whose slot
 * its lease renewals must keep (another instance finds it taken at every sample, and free
 * once it ends), one until the failover and one after it, and an override of a named
 * limit and of callers written by one instance at every sample, which the other must
 * apply. Run with {@code -Psoak}; the figures are in docs/operations.md.
 */
@Tag("soak")
class SoakIntegrationTests {

	private static final Duration RUN = Duration.ofMinutes(Integer.getInteger("limiter.soak.minutes", 30));

	private static final Limit LIMIT = Limit.of("soak", 5, Duration.ofSeconds(1));

	private static final int KEYS = 50;

	/**
	 * One slot, held by a call that lasts the whole run; its lease renewed every 10 s.
	 */
	private static final Limit HELD = Limit.of("soak-held", 1, Duration.ofSeconds(30))
		.withAlgorithm(Algorithm.IN_FLIGHT);

	private static final int THREADS_PER_INSTANCE = 2;

	/** Calls per second of each thread: 400 a second in all, 8 per key against 5. */
	private static final int RATE = 100;

	/**
	 * The admissions Redis decided, for the oracle: each key's index and time, off the
	 * heap, so that the heap samples measure the application and not the oracle's records
	 * (held as boxed longs, they grew the heap by 17 MB in 30 minutes).
	 */
	private final ByteBuffer admissions = ByteBuffer
		.allocateDirect((int) (RUN.toSeconds() * RATE * THREADS_PER_INSTANCE * 2 * 12 + 4096));

	private final AtomicInteger admitted = new AtomicInteger();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicLong calls = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	private final AtomicLong degraded = new AtomicLong();

	private final AtomicLong slowestNanos = new AtomicLong();

	@Test
	void aLongSteadyLoadThroughRestartsAndAFailoverLeavesNothingBehind() throws Exception {
		try (RedisSentinels redis = RedisSentinels.start(Duration.ofSeconds(1))) {
			String[] properties = { "spring.data.redis.sentinel.master=" + RedisSentinels.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + String.join(",", redis.sentinelAddresses()) };
			FailoverLoad.application(properties).run((first) -> FailoverLoad.application(properties).run((second) -> {
				List<Sample> samples = new ArrayList<>();
				CountDownLatch stopped = new CountDownLatch(2 * THREADS_PER_INSTANCE);
				for (RateLimiter limiter : List.of(first.getBean(RateLimiter.class),
						second.getBean(RateLimiter.class))) {
					for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
						Thread thread = new Thread(() -> load(limiter, stopped), "soak-load");
						thread.setDaemon(true);
						thread.start();
					}
				}
				RateLimiter firstLimiter = first.getBean(RateLimiter.class);
				RateLimiter secondLimiter = second.getBean(RateLimiter.class);
				Decision longCall = firstLimiter.acquire("soak-held", HELD);
				assertThat(longCall.isAllowed()).isTrue();
				OverrideStore overrides = first.getBean(OverrideStore.class);
				LimitOverrides applied = second.getBean(LimitResolver.class).overrides();
				List<String> lost = new ArrayList<>();
				long start = System.nanoTime();
				long step = RUN.toNanos() / 30;
				List<String> events = new ArrayList<>();
				for (int i = 1; i <= 30; i++) {
					try {
						overrides.setNamed("soak-override", new NamedOverride(new Numbers(100L + i, null), Map.of()));
						overrides.setCaller("soak-override", "k" + (i % 5), new Numbers((long) i, null));
					}
					catch (RuntimeException ex) {
						events.add("override " + i + " not written (" + ex.getClass().getSimpleName() + ")");
					}
					sleepUntil(start + i * step);
					// the first long call spans the replica's restart, the second runs
					// from
					// after the failover to the end (the former master comes back empty,
					// and a failover loses what Redis loses: the oracle's bound says how
					// much)
					if (i != 16) {
						Decision probe = secondLimiter.acquire("soak-held", HELD);
						if (probe.isAllowed() && !probe.isDegraded()) {
							secondLimiter.finish(probe);
							lost.add("the long call's slot was free at " + minutes(start));
						}
					}
					else {
						longCall = firstLimiter.acquire("soak-held", HELD);
						assertThat(longCall.isAllowed()).as("the second long call").isTrue();
					}
					if (i == 8) {
						redis.replica().restart();
						events.add("replica restarted at " + minutes(start));
					}
					if (i == 15) {
						assertThat(firstLimiter.finish(longCall)).as("the first long call ends").isTrue();
						RedisServer former = redis.master();
						former.kill();
						redis.awaitMasterOtherThan(former, Duration.ofSeconds(60));
						events.add("master killed and failed over at " + minutes(start));
						former.restart();
						events.add("former master restarted at " + minutes(start));
					}
					samples.add(sample(redis, minutes(start)));
				}
				this.running.set(false);
				assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
				assertThat(lost).as("a call in flight for half the run keeps its slot").isEmpty();
				assertThat(firstLimiter.finish(longCall)).isTrue();
				Decision after = secondLimiter.acquire("soak-held", HELD);
				assertThat(after.isAllowed()).as("the slot is free once the call ends").isTrue();
				secondLimiter.finish(after);
				Awaitility.await()
					.atMost(Duration.ofSeconds(15))
					.untilAsserted(() -> assertThat(applied.named().get("soak-override"))
						.as("the last override, applied by the other instance")
						.isEqualTo(new NamedOverride(new Numbers(130L, null), Map.of())));
				assertThat(applied.callers().get("soak-override")).as("the callers' overrides").hasSize(5);
				long overAdmission = overAdmission();
				System.out.printf(
						"soak, %d min: %d calls, %d rejected, %d decided by the policy, %d errors, slowest %d ms; "
								+ "over-admission by the oracle %d; %s%n",
						RUN.toMinutes(), this.calls.get(), this.rejected.get(), this.degraded.get(), this.errors.get(),
						TimeUnit.NANOSECONDS.toMillis(this.slowestNanos.get()), overAdmission, events);
				samples.forEach((sample) -> System.out.println("soak sample: " + sample));
				Sample settled = samples.get(2);
				Sample last = samples.get(samples.size() - 1);
				assertThat(this.errors.get()).as("exceptions that reached a caller").isZero();
				assertThat(overAdmission).as("over-admission: at most what one failover loses")
					.isLessThanOrEqualTo(LIMIT.threshold());
				assertThat(last.heapMb()).as("heap after GC, MB").isLessThanOrEqualTo(settled.heapMb() + 8);
				assertThat(last.threads()).as("live threads").isLessThanOrEqualTo(settled.threads() + 10);
				assertThat(last.redisKeys()).as("Redis keys").isLessThanOrEqualTo(2L * KEYS + 10);
				assertThat(last.redisKb()).as("Redis used memory, KB").isLessThanOrEqualTo(settled.redisKb() + 4096);
			}));
		}
	}

	private void load(RateLimiter limiter, CountDownLatch stopped) {
		long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
		long next = System.nanoTime();
		try {
			while (this.running.get()) {
				int index = ThreadLocalRandom.current().nextInt(KEYS);
				String key = "soak-" + index;
				long start = System.nanoTime();
				try {
					Decision decision = limiter.acquire(key, LIMIT);
					if (decision.isDegraded()) {
						this.degraded.incrementAndGet();
					}
					else if (decision.isAllowed()) {
						int slot = this.admitted.getAndIncrement() * 12;
						this.admissions.putInt(slot, index);
						this.admissions.putLong(slot + 4, decision.decidedAtMicros());
					}
					else {
						this.rejected.incrementAndGet();
					}
				}
				catch (RuntimeException ex) {
					this.errors.incrementAndGet();
				}
				this.calls.incrementAndGet();
				this.slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
				next += interval;
				sleepUntil(next);
			}
		}
		finally {
			stopped.countDown();
		}
	}

	/** Admissions above the threshold in any window of each key, by Redis's clock. */
	private long overAdmission() {
		long windowMicros = LIMIT.period().toNanos() / 1_000;
		List<List<Long>> times = new ArrayList<>();
		for (int key = 0; key < KEYS; key++) {
			times.add(new ArrayList<>());
		}
		for (int i = 0; i < this.admitted.get(); i++) {
			times.get(this.admissions.getInt(i * 12)).add(this.admissions.getLong(i * 12 + 4));
		}
		long over = 0;
		for (List<Long> key : times) {
			long[] sorted = key.stream().mapToLong(Long::longValue).sorted().toArray();
			over += Math.max(0, FailoverLoad.mostInAnyWindow(sorted, windowMicros) - LIMIT.threshold());
		}
		return over;
	}

	private static Sample sample(RedisSentinels redis, double minute) {
		RedisServer master = (redis.currentMasterPort() == redis.master().port()) ? redis.master() : redis.replica();
		return SoakSamples.sample(master, minute);
	}

}
