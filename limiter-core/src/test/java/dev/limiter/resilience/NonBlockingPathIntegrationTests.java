package dev.limiter.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.internal.redis.LimiterConnectionFactories;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.NonBlockingThreads;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The non-blocking path never blocks: BlockHound fails any blocking call made on the
 * calling thread or on the limiter's timer, through the stack the starter builds (breaker
 * and policies, rejection cache, Redis), with Redis healthy and paused.
 */
class NonBlockingPathIntegrationTests {

	private static final String CALLER = "non-blocking-caller";

	private final Limit limit = Limit.of(1, Duration.ofMinutes(1));

	private RedisServer redis;

	private LettuceConnectionFactory application;

	private LettuceConnectionFactory dedicated;

	private RateLimiter limiter;

	@BeforeAll
	static void installBlockHound() {
		NonBlockingThreads
			.watch((thread) -> thread.getName().startsWith(CALLER) || thread.getName().equals("limiter-timer"));
	}

	@BeforeEach
	void start() {
		this.redis = RedisServer.start();
		this.application = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", this.redis.port()));
		this.application.afterPropertiesSet();
		this.dedicated = LimiterConnectionFactories.dedicated(this.application, Duration.ofMillis(50));
		RedisRateLimiter store = RedisRateLimiter.builder(this.dedicated).build();
		// Connected before the test, as the starter connects at startup: connecting
		// blocks.
		store.acquire("warm-up", Limit.of(1, Duration.ofMillis(1)));
		this.limiter = new ResilientRateLimiter(RejectionCachingRateLimiter.wrap(store).build(),
				FailurePolicy.FAIL_OPEN, new InMemoryRateLimiter(),
				ResilientRateLimiter.loggingBreaker(3, Duration.ofMillis(500)), null);
	}

	@AfterEach
	void stop() {
		this.dedicated.destroy();
		this.application.destroy();
		this.redis.close();
	}

	@Test
	void blockHoundCatchesABlockingCallOnTheCallingThread() throws Exception {
		// The check itself works: a sleep on a non-blocking thread is an error.
		Throwable failure = onNonBlockingThread(() -> {
			Thread.sleep(1);
			return null;
		});
		assertThat(failure).hasMessageContaining("Blocking call");
	}

	@Test
	void admittedRejectedAndLocallyRejectedCallsNeverBlock() throws Exception {
		AtomicReference<List<CompletableFuture<Decision>>> decisions = new AtomicReference<>();
		assertThat(onNonBlockingThread(() -> {
			decisions.set(List.of(acquire(), acquire(), acquire()));
			return null;
		})).isNull();
		List<Decision> answered = decisions.get().stream().map(CompletableFuture::join).toList();
		assertThat(answered).extracting(Decision::isAllowed).containsExactly(true, false, false);
		assertThat(answered).noneMatch(Decision::isDegraded);
	}

	@Test
	void aPausedRedisIsDecidedByThePolicyWithoutBlocking() throws Exception {
		this.redis.pause();
		try {
			AtomicReference<CompletableFuture<Decision>> decision = new AtomicReference<>();
			assertThat(onNonBlockingThread(() -> {
				decision.set(acquire());
				return null;
			})).isNull();
			// The timeout is judged on the limiter's timer, which BlockHound watches too.
			Decision degraded = decision.get().join();
			assertThat(degraded.isAllowed()).isTrue();
			assertThat(degraded.policy()).isEqualTo(FailurePolicy.FAIL_OPEN);
		}
		finally {
			this.redis.resume();
		}
	}

	private CompletableFuture<Decision> acquire() {
		return this.limiter.acquireAsync("caller", 1, List.of(this.limit));
	}

	/**
	 * Run a task on a thread BlockHound watches and return what it threw, or null.
	 */
	private static Throwable onNonBlockingThread(java.util.concurrent.Callable<Void> task) throws InterruptedException {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			try {
				task.call();
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		}, CALLER);
		thread.start();
		thread.join();
		return failure.get();
	}

}
