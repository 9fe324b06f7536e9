package dev.limiter.store;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.BootRedisAutoConfiguration;
import dev.limiter.test.MutableClock;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of 1,000,000 distinct callers through one application, each with a key of its
 * own ({@code key = "#user"}), through the aspect and the Redis store: the JVM's heap
 * after a full GC stays where it was (the rejection cache is bounded, SpEL and metric
 * state is per method, not per caller), and Redis's memory returns to its baseline within
 * the window after the flood, every key expiring.
 */
@Tag("flood")
class FloodIntegrationTests {

	private static final int CALLERS = 1_000_000;

	private static final int THREADS = 4;

	private static final Duration WINDOW = Duration.ofSeconds(10);

	private static RedisServer redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void aMillionCallersLeaveNeitherHeapNorRedisMemoryBehind() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootRedisAutoConfiguration.type(), AopAutoConfiguration.class,
					LimiterAutoConfiguration.class))
			.withUserConfiguration(CallersConfiguration.class)
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"limiter.timeout=2s")
			.run((context) -> {
				Callers callers = context.getBean(Callers.class);
				long redisBaseline = usedMemory();
				// Warm the path, then measure the heap it needs.
				run(callers, "warm-", 10_000, 1);
				awaitEmptyRedis(WINDOW.plus(Duration.ofSeconds(20)));
				long heapBefore = heapAfterGc();
				long start = System.nanoTime();
				long[] outcome = run(callers, "caller-", CALLERS, THREADS);
				// A second call of each thread's last 5,000 callers, inside their window:
				// rejected, and remembered by the rejection cache (at most 10,000).
				long rejectedAgain = 0;
				for (int t = 0; t < THREADS; t++) {
					int to = (t + 1) * CALLERS / THREADS;
					rejectedAgain += runRange(callers, to - 5_000, to);
				}
				long floodMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				long keysAtTheEnd = (Long) redis.command("DBSIZE");
				long redisAtTheEnd = usedMemory();
				long ended = System.nanoTime();
				long emptyAfter = awaitEmptyRedis(WINDOW.plus(Duration.ofSeconds(20)));
				long redisAfter = usedMemory();
				long heapAfter = heapAfterGc();
				System.out.printf(
						"flood: %d callers in %d ms (%d admitted, %d rejected); then %d of 20,000 rejected again; "
								+ "heap after GC %d MB before, %d MB after; Redis %d keys and %d KB at the end "
								+ "(baseline %d KB), empty %d ms after the flood, then %d KB%n",
						CALLERS, floodMillis, outcome[0], outcome[1], rejectedAgain, mb(heapBefore), mb(heapAfter),
						keysAtTheEnd, redisAtTheEnd / 1024, redisBaseline / 1024,
						TimeUnit.NANOSECONDS.toMillis(emptyAfter - ended), redisAfter / 1024);
				assertThat(outcome[0]).as("admitted: every caller's first call").isEqualTo(CALLERS);
				assertThat(rejectedAgain).as("second calls inside the window").isEqualTo(20_000);
				assertThat(heapAfter - heapBefore).as("heap growth after GC, bytes").isLessThan(64L * 1024 * 1024);
				assertThat(emptyAfter - ended).as("time until Redis holds no key, ns")
					.isLessThan(WINDOW.plus(Duration.ofSeconds(5)).toNanos());
				assertThat(redisAfter - redisBaseline).as("Redis memory above its baseline, bytes")
					.isLessThan(2L * 1024 * 1024);
			});
	}

	/**
	 * Call {@code count} callers once each from {@code threads} threads; admitted,
	 * rejected.
	 */
	private static long[] run(Callers callers, String prefix, int count, int threads) throws Exception {
		AtomicLong admitted = new AtomicLong();
		AtomicLong rejected = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> parts = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int from = t * count / threads;
				int to = (t + 1) * count / threads;
				parts.add(pool.submit(() -> {
					for (int i = from; i < to; i++) {
						try {
							callers.call(prefix + i);
							admitted.incrementAndGet();
						}
						catch (RateLimitExceededException ex) {
							rejected.incrementAndGet();
						}
					}
				}));
			}
			for (Future<?> part : parts) {
				part.get(10, TimeUnit.MINUTES);
			}
		}
		finally {
			pool.shutdownNow();
		}
		return new long[] { admitted.get(), rejected.get() };
	}

	private static long runRange(Callers callers, int from, int to) {
		long rejected = 0;
		for (int i = from; i < to; i++) {
			try {
				callers.call("caller-" + i);
			}
			catch (RateLimitExceededException ex) {
				rejected++;
			}
		}
		return rejected;
	}

	/** Wait until every key has expired; return when. */
	private static long awaitEmptyRedis(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while ((Long) redis.command("DBSIZE") > 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		assertThat((Long) redis.command("DBSIZE")).as("keys left in Redis").isZero();
		return System.nanoTime();
	}

	private static long usedMemory() {
		String info = String.valueOf(redis.command("INFO", "memory"));
		for (String line : info.split("\r\n")) {
			if (line.startsWith("used_memory:")) {
				return Long.parseLong(line.substring("used_memory:".length()));
			}
		}
		throw new IllegalStateException("INFO memory has no used_memory");
	}

	private static long heapAfterGc() {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

	private static long mb(long bytes) {
		return bytes / (1024 * 1024);
	}

	/** The limited method: one call per caller per window. */
	public static class Callers {

		@RateLimit(key = "#user", threshold = 1, period = 10)
		public int call(String user) {
			return user.length();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CallersConfiguration {

		@Bean
		Callers callers() {
			return new Callers();
		}

	}

	@Test
	void aFullInMemoryStoreKeepsLimitingKeysInUseAndNewCallers() {
		int maximum = InMemoryRateLimiter.DEFAULT_MAXIMUM_KEYS;
		// The clock stands still: the whole flood falls in one window, nothing expires.
		InMemoryRateLimiter limiter = new InMemoryRateLimiter(MutableClock.startingNow(), false);
		Limit perCaller = Limit.of(1, WINDOW);
		Limit hot = Limit.of(5, WINDOW);
		assertThat(limiter.acquire("early", perCaller).isAllowed()).isTrue();
		long heapBefore = heapAfterGc();
		long admitted = 0;
		long rejected = 0;
		long hotAdmitted = 0;
		long start = System.nanoTime();
		for (int i = 0; i < CALLERS; i++) {
			String caller = "caller-" + i;
			admitted += limiter.acquire(caller, perCaller).isAllowed() ? 1 : 0;
			rejected += limiter.acquire(caller, perCaller).isAllowed() ? 0 : 1;
			if (i % 1_000 == 0) {
				hotAdmitted += limiter.acquire("hot", hot).isAllowed() ? 1 : 0;
			}
		}
		long floodNanos = System.nanoTime() - start;
		long heapFull = heapAfterGc();
		boolean earlyForgotten = limiter.acquire("early", perCaller).isAllowed();
		System.out.printf(
				"in-memory flood: %d callers twice each, maximum %d keys: %d held, %d live keys evicted; "
						+ "%d first calls admitted, %d second calls rejected; the hot key (5 per window, called "
						+ "%d times) admitted %d; a key last used before the flood forgotten: %s; %d ns per call; "
						+ "heap after GC %d MB before, %d MB full (%d bytes per held key)%n",
				CALLERS, maximum, limiter.size(), limiter.evictedLiveKeys(), admitted, rejected, CALLERS / 1_000,
				hotAdmitted, earlyForgotten, floodNanos / (2L * CALLERS + CALLERS / 1_000), mb(heapBefore),
				mb(heapFull), (heapFull - heapBefore) / limiter.size());
		assertThat(limiter.size()).isLessThanOrEqualTo(maximum);
		assertThat(admitted).as("every caller's first call").isEqualTo(CALLERS);
		assertThat(rejected).as("every caller's second call is counted and rejected").isEqualTo(CALLERS);
		assertThat(hotAdmitted).as("a key in use stays exact through the flood").isEqualTo(5);
		assertThat(earlyForgotten).as("the least recently used keys make room").isTrue();
		assertThat(limiter.evictedLiveKeys()).isGreaterThanOrEqualTo(CALLERS + 1 - maximum);
	}

}
