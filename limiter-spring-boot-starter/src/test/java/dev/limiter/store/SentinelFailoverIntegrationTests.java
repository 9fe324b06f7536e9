package dev.limiter.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.RedisSentinels;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on a replicated Redis under Sentinel, configured through Spring Boot's own
 * {@code spring.data.redis.sentinel.*}: the master is killed while four threads call the
 * limiter, the Sentinels promote the replica, and the limiter follows.
 * <p>
 * Measured and printed: the slowest call, how long until every decision came from Redis
 * again, the calls admitted without Redis meanwhile (fail-open), and the over-admission
 * after the promotion against the exact oracle (admitted calls in any window of W, by the
 * Redis server's clock). Replication is asynchronous, so admissions the old master had
 * recorded but not yet sent to the replica are lost with it; they bound the
 * over-admission.
 */
@Tag("failover")
class SentinelFailoverIntegrationTests {

	private static final String[] REDIS_AUTO_CONFIGURATIONS = {
			"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
			"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" };

	private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

	private static final Limit LIMIT = Limit.of("failover", 50, Duration.ofSeconds(1));

	private static final int THREADS = 4;

	private static RedisSentinels redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisSentinels.start(DOWN_AFTER);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void killedMasterFailsOverWithoutErrorsAndLimitingResumesExactly() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(redisAutoConfiguration(), LimiterAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinels.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + String.join(",", redis.sentinelAddresses()),
					"limiter.timeout=200ms")
			.run((context) -> {
				assertThat(context.getBean(LettuceConnectionFactory.class).isRedisSentinelAware()).isTrue();
				assertThat(context.getBean(LimiterRedisConnection.class).isDedicated()).isTrue();
				RateLimiter limiter = context.getBean(RateLimiter.class);
				Load load = new Load(limiter);
				load.start();
				try {
					// Two full windows on the master (and its replica) before it dies.
					load.runFor(LIMIT.period().multipliedBy(2));
					long killedAt = System.nanoTime();
					redis.master().kill();
					redis.awaitMasterOtherThan(redis.master(), Duration.ofSeconds(30));
					long promotedAt = System.nanoTime();
					// Calls keep running until the limiter has answered from the new
					// master
					// for a while.
					load.awaitExactFor(killedAt, Duration.ofSeconds(2), Duration.ofSeconds(60));
					load.stop();
					Figures figures = load.figures(killedAt);
					System.out
						.printf("sentinel failover: promoted %d ms after the kill; exact again %d ms after the kill; "
								+ "slowest call %d ms; %d calls, %d errors, %d admitted without Redis; "
								+ "over-admission after the promotion %d (most admitted in any %s window: %d of %d)%n",
								TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt), figures.exactAfterMillis,
								figures.slowestMillis, figures.calls, figures.errors, figures.degradedAdmissions,
								figures.overAdmission, LIMIT.period(), figures.mostInAWindow, LIMIT.threshold());
					assertThat(figures.errors).as("exceptions that reached a caller").isZero();
					assertThat(figures.slowestMillis).as("slowest call, ms").isLessThan(2_000);
					assertThat(figures.exactAfterMillis).as("time until exact again, ms").isLessThan(60_000);
					// Lost with the old master at most what it admitted in its last
					// window.
					assertThat(figures.overAdmission).as("over-admission").isLessThanOrEqualTo(LIMIT.threshold());
				}
				finally {
					load.stop();
				}
			});
	}

	private static Class<?> redisAutoConfiguration() {
		for (String name : REDIS_AUTO_CONFIGURATIONS) {
			if (ClassUtils.isPresent(name, null)) {
				return ClassUtils.resolveClassName(name, null);
			}
		}
		throw new IllegalStateException("No Spring Boot Redis auto-configuration on the classpath");
	}

	private record Figures(long calls, long errors, long degradedAdmissions, long slowestMillis, long exactAfterMillis,
			long mostInAWindow, long overAdmission) {

	}

	/**
	 * Threads calling one key under the limit as fast as they can. Kept: the Redis time
	 * of every admission decided by Redis (the oracle's input, at most N per W), and
	 * counters for the rest, so that millions of fail-open calls cost no memory.
	 */
	private static final class Load {

		private final RateLimiter limiter;

		private final ConcurrentLinkedQueue<Long> admittedAtMicros = new ConcurrentLinkedQueue<>();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicLong calls = new AtomicLong();

		private final AtomicLong errors = new AtomicLong();

		private final AtomicLong degradedAdmissions = new AtomicLong();

		private final AtomicLong slowestNanos = new AtomicLong();

		/** When the last call not decided by Redis started, and when it ended. */
		private final AtomicLong lastUnexactStart = new AtomicLong(Long.MIN_VALUE);

		private final AtomicLong lastUnexactEnd = new AtomicLong(Long.MIN_VALUE);

		private final CountDownLatch stopped = new CountDownLatch(THREADS);

		Load(RateLimiter limiter) {
			this.limiter = limiter;
		}

		void start() {
			for (int i = 0; i < THREADS; i++) {
				new Thread(this::run, "failover-load-" + i).start();
			}
		}

		private void run() {
			try {
				while (this.running.get()) {
					long start = System.nanoTime();
					Decision decision = null;
					try {
						decision = this.limiter.acquire("sentinel-key", 1, List.of(LIMIT));
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

		/**
		 * Let the load run for a while: the length of the workload, not a wait for it.
		 */
		void runFor(Duration duration) {
			long end = System.nanoTime() + duration.toNanos();
			while (System.nanoTime() < end) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
			}
			assertThat(this.admittedAtMicros).as("admissions decided by Redis before the kill").isNotEmpty();
		}

		/**
		 * Wait until every call of the last {@code span} was decided by Redis, once the
		 * kill has had time to show.
		 */
		void awaitExactFor(long killedAt, Duration span, Duration timeout) {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (System.nanoTime() < deadline) {
				long now = System.nanoTime();
				long lastUnexact = Math.max(this.lastUnexactStart.get(), killedAt + DOWN_AFTER.toNanos());
				if (now - lastUnexact > span.toNanos()) {
					return;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			this.stopped.await(10, TimeUnit.SECONDS);
		}

		Figures figures(long killedAt) {
			long[] times = this.admittedAtMicros.stream().mapToLong(Long::longValue).sorted().toArray();
			long windowMicros = LIMIT.period().toNanos() / 1_000;
			long most = 0;
			int from = 0;
			for (int to = 0; to < times.length; to++) {
				while (times[to] - times[from] >= windowMicros) {
					from++;
				}
				most = Math.max(most, to - from + 1);
			}
			long exactAfter = Math.max(0, this.lastUnexactEnd.get() - killedAt);
			return new Figures(this.calls.get(), this.errors.get(), this.degradedAdmissions.get(),
					TimeUnit.NANOSECONDS.toMillis(this.slowestNanos.get()), TimeUnit.NANOSECONDS.toMillis(exactAfter),
					most, Math.max(0, most - LIMIT.threshold()));
		}

	}

}
