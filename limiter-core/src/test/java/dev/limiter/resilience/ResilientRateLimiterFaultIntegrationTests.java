package dev.limiter.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.internal.redis.LimiterConnectionFactories;
import dev.limiter.internal.redis.RedisKeys;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of a real redis-server process: killed, paused, restarted, absent at start.
 */
class ResilientRateLimiterFaultIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(100);

	/** Scheduling noise allowed on top of the timeout on a shared 2-core machine. */
	private static final Duration MARGIN = Duration.ofMillis(400);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void killedRedisFailsOpenWithinTheTimeoutAndRecoversWithoutDoubleCounting() throws Exception {
		RedisServer redis = server();
		ResilientRateLimiter limiter = limiter(redis.port(), FailurePolicy.FAIL_OPEN);
		Limit limit = Limit.of(100_000, Duration.ofMinutes(1));
		// The first connection of a cold JVM may take longer than the timeout.
		awaitRecovery(limiter, limit);
		assertThat(load(limiter, limit, 4, 50).degraded).isZero();
		redis.kill();
		Load down = load(limiter, limit, 8, 50);
		assertThat(down.failed).isZero();
		assertThat(down.rejected).isZero();
		assertThat(down.degraded).isEqualTo(400);
		assertThat(down.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
		redis.restart();
		Duration recovery = awaitRecovery(limiter, limit);
		assertThat(recovery).isLessThan(Duration.ofSeconds(2));
		// The restarted server is empty: every entry in it is a call it admitted, none a
		// replay of a command sent while it was down.
		Load after = load(limiter, limit, 4, 25);
		assertThat(after.degraded).isZero();
		assertThat(redis.command("ZCARD", RedisKeys.key("limiter:", "load", limit))).isEqualTo(after.admitted);
	}

	@Test
	void killedRedisFailsClosedForEveryCall() throws Exception {
		RedisServer redis = server();
		ResilientRateLimiter limiter = limiter(redis.port(), FailurePolicy.FAIL_CLOSED);
		Limit limit = Limit.of(100_000, Duration.ofMinutes(1));
		redis.kill();
		Load down = load(limiter, limit, 8, 50);
		assertThat(down.failed).isZero();
		assertThat(down.rejected).isEqualTo(400);
		assertThat(down.degraded).isEqualTo(400);
		assertThat(down.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
	}

	@Test
	void pausedRedisTimesOutWithinTheTimeoutAndRecoversWhenResumed() throws Exception {
		RedisServer redis = server();
		ResilientRateLimiter limiter = limiter(redis.port(), FailurePolicy.FAIL_OPEN);
		Limit limit = Limit.of(100_000, Duration.ofMinutes(1));
		awaitRecovery(limiter, limit);
		assertThat(load(limiter, limit, 2, 10).degraded).isZero();
		redis.pause();
		Load paused = load(limiter, limit, 8, 25);
		redis.resume();
		assertThat(paused.failed).isZero();
		assertThat(paused.rejected).isZero();
		assertThat(paused.degraded).isEqualTo(200);
		assertThat(paused.maxLatency).isLessThan(TIMEOUT.plus(MARGIN));
		assertThat(awaitRecovery(limiter, limit)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void redisDownAtStartAppliesThePolicyThenPicksRedisUp() {
		int port = RedisServer.freePort();
		ResilientRateLimiter limiter = limiter(port, FailurePolicy.LOCAL);
		Limit limit = Limit.of(3, Duration.ofMinutes(1)).withLocalThreshold(2);
		Decision first = limiter.acquire("early", limit);
		assertThat(first.isDegraded()).isTrue();
		assertThat(first.isAllowed()).isTrue();
		assertThat(limiter.acquire("early", limit).isAllowed()).isTrue();
		assertThat(limiter.acquire("early", limit).isAllowed()).as("local threshold of 2").isFalse();
		RedisServer redis = RedisServer.startProcess(port);
		this.closeables.add(redis);
		assertThat(awaitRecovery(limiter, Limit.of(100, Duration.ofMinutes(1)))).isLessThan(Duration.ofSeconds(2));
		Decision fromRedis = limiter.acquire("early", limit);
		assertThat(fromRedis.isDegraded()).isFalse();
		assertThat(fromRedis.remaining()).isEqualTo(2);
	}

	@Test
	void callersShareOneAttemptToConnectToASilentRedisThenPickRedisUp() throws Exception {
		RedisServer redis = server();
		// Accepts connections and never answers, so an attempt to connect takes its
		// whole bound, the timeout plus the read grace: the callers share one attempt
		// instead of queueing for attempts of their own, the n-th for n of them.
		redis.pause();
		ResilientRateLimiter limiter = limiter(redis.port(), FailurePolicy.FAIL_OPEN);
		Limit limit = Limit.of(100, Duration.ofMinutes(1));
		Load silent = load(limiter, limit, 6, 1);
		assertThat(silent.failed).isZero();
		assertThat(silent.degraded).isEqualTo(6);
		// Less than two attempts: no caller waited for another caller's attempt.
		Duration attempt = TIMEOUT.plus(LimiterConnectionFactories.READ_GRACE);
		assertThat(silent.maxLatency).isLessThan(attempt.multipliedBy(2));
		redis.resume();
		assertThat(awaitRecovery(limiter, limit)).isLessThan(Duration.ofSeconds(3));
		assertThat(limiter.acquire("after", limit).isDegraded()).isFalse();
	}

	private RedisServer server() {
		RedisServer redis = RedisServer.start();
		this.closeables.add(redis);
		return redis;
	}

	private ResilientRateLimiter limiter(int port, FailurePolicy policy) {
		LettuceConnectionFactory application = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		LettuceConnectionFactory dedicated = LimiterConnectionFactories.dedicated(application, TIMEOUT);
		this.closeables.add(dedicated::destroy);
		RedisRateLimiter store = RedisRateLimiter.builder(dedicated).build();
		return new ResilientRateLimiter(store, policy, new InMemoryRateLimiter(),
				ResilientRateLimiter.loggingBreaker(3, Duration.ofMillis(250)), null);
	}

	/**
	 * Poll until the store answers again, bounded; returns how long it took.
	 */
	private Duration awaitRecovery(ResilientRateLimiter limiter, Limit limit) {
		long start = System.nanoTime();
		long deadline = start + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (!limiter.acquire("probe", limit).isDegraded()) {
				return Duration.ofNanos(System.nanoTime() - start);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

	private Load load(ResilientRateLimiter limiter, Limit limit, int threads, int callsPerThread) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Callable<Load>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				tasks.add(() -> {
					Load load = new Load();
					for (int i = 0; i < callsPerThread; i++) {
						long start = System.nanoTime();
						try {
							Decision decision = limiter.acquire("load", limit);
							load.admitted += decision.isAllowed() ? 1 : 0;
							load.rejected += decision.isAllowed() ? 0 : 1;
							load.degraded += decision.isDegraded() ? 1 : 0;
						}
						catch (RuntimeException ex) {
							load.failed++;
						}
						Duration latency = Duration.ofNanos(System.nanoTime() - start);
						load.maxLatency = (latency.compareTo(load.maxLatency) > 0) ? latency : load.maxLatency;
					}
					return load;
				});
			}
			Load total = new Load();
			for (Future<Load> future : executor.invokeAll(tasks)) {
				total.add(future.get());
			}
			return total;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static final class Load {

		long admitted;

		long rejected;

		long degraded;

		long failed;

		Duration maxLatency = Duration.ZERO;

		void add(Load other) {
			this.admitted += other.admitted;
			this.rejected += other.rejected;
			this.degraded += other.degraded;
			this.failed += other.failed;
			this.maxLatency = (other.maxLatency.compareTo(this.maxLatency) > 0) ? other.maxLatency : this.maxLatency;
		}

	}

}
