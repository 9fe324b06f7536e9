package dev.limiter.redis;

import dev.limiter.internal.redis.LimiterConnectionFactories;

import dev.limiter.internal.redis.RedisKeys;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A reply that Redis sent in time but this JVM read late is a decision, not a timeout; a
 * Redis that does not answer is still a timeout.
 */
class LateReplyIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(50);

	private final Limit limit = Limit.of(10, Duration.ofMinutes(1));

	private RedisServer redis;

	private LettuceConnectionFactory application;

	private LettuceConnectionFactory dedicated;

	private RedisRateLimiter limiter;

	@BeforeEach
	void start() {
		this.redis = RedisServer.start();
		this.application = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", this.redis.port()));
		this.application.afterPropertiesSet();
		this.dedicated = LimiterConnectionFactories.dedicated(this.application, TIMEOUT);
		this.limiter = RedisRateLimiter.builder(this.dedicated).build();
		// Connected and warm, so that only the stall below can make a call late.
		assertThat(this.limiter.acquire("warm", this.limit).isAllowed()).isTrue();
	}

	@AfterEach
	void stop() {
		this.limiter.close();
		this.dedicated.destroy();
		this.application.destroy();
		this.redis.close();
	}

	@Test
	void anAnswerThisJvmWasTooBusyToReadInTimeIsStillTheDecision() {
		// The event loops that write commands and read replies stall for six timeouts,
		// as they do in a JVM that is starved of CPU or in a GC pause.
		stallEventLoops(Duration.ofMillis(300));
		Decision decision = this.limiter.acquire("late", this.limit);
		assertThat(decision.isAllowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(9);
		assertThat(this.redis.command("ZCARD", RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "late", this.limit)))
			.isEqualTo(1L);
	}

	@Test
	void aCommandThisJvmWroteLateHasItsWholeTimeoutFromTheWrite() {
		withLongerTimeout((limiter, factory) -> {
			// The loops hold the command for 400 ms, and Redis answers 200 ms after
			// it got it: later than 500 ms after the call, within 500 ms of the write.
			// By the time the call is due the loops keep up again, so only the write's
			// time tells that Redis has not had its 500 ms.
			pauseRedisFor(Duration.ofMillis(600));
			stallEventLoops(factory, Duration.ofMillis(400));
			Decision decision = limiter.acquire("written-late", this.limit);
			assertThat(decision.isAllowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(9);
		});
	}

	@Test
	void withoutBlockingACommandThisJvmWroteLateHasItsWholeTimeoutFromTheWrite() {
		withLongerTimeout((limiter, factory) -> {
			pauseRedisFor(Duration.ofMillis(600));
			stallEventLoops(factory, Duration.ofMillis(400));
			Decision decision = limiter.acquireAsync("written-late", 1, List.of(this.limit)).join();
			assertThat(decision.isAllowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(9);
		});
	}

	@Test
	void aStallLongerThanTheGraceIsATimeout() {
		stallEventLoops(LimiterConnectionFactories.READ_GRACE.plus(TIMEOUT).plusMillis(500));
		assertThatExceptionOfType(RedisCommandTimeoutException.class)
			.isThrownBy(() -> this.limiter.acquire("stalled", this.limit));
	}

	@Test
	void aPausedRedisIsATimeoutAfterTheTimeoutNotTheGrace() {
		this.redis.pause();
		try {
			long started = System.nanoTime();
			assertThatExceptionOfType(RedisCommandTimeoutException.class)
				.isThrownBy(() -> this.limiter.acquire("paused", this.limit))
				.satisfies(LateReplyIntegrationTests::timedOutAfterItsPatience);
			// Not a speed assertion: it tells the two ways a call can end apart, the
			// timeout (50 ms) and the grace (1 s) for a busy JVM.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(LimiterConnectionFactories.READ_GRACE);
		}
		finally {
			this.redis.resume();
		}
	}

	@Test
	void withoutBlockingALateAnswerIsStillTheDecision() {
		stallEventLoops(Duration.ofMillis(300));
		CompletableFuture<Decision> decision = this.limiter.acquireAsync("late", 1, List.of(this.limit));
		assertThat(decision.join().isAllowed()).isTrue();
		assertThat(this.redis.command("ZCARD", RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "late", this.limit)))
			.isEqualTo(1L);
	}

	@Test
	void withoutBlockingAPausedRedisIsATimeoutAndTheCallerIsNotHeld() {
		this.redis.pause();
		try {
			CompletableFuture<Decision> decision = this.limiter.acquireAsync("paused", 1, List.of(this.limit));
			// The caller got a future back while Redis cannot have answered.
			assertThat(decision).isNotDone();
			assertThatExceptionOfType(CompletionException.class).isThrownBy(decision::join)
				.havingCause()
				.isInstanceOf(RedisCommandTimeoutException.class)
				.satisfies(LateReplyIntegrationTests::timedOutAfterItsPatience);
		}
		finally {
			this.redis.resume();
		}
	}

	@Test
	void withoutBlockingAStallLongerThanTheGraceIsATimeout() {
		stallEventLoops(LimiterConnectionFactories.READ_GRACE.plus(TIMEOUT).plusMillis(500));
		CompletableFuture<Decision> decision = this.limiter.acquireAsync("stalled", 1, List.of(this.limit));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(decision::join)
			.havingCause()
			.isInstanceOf(RedisCommandTimeoutException.class);
	}

	/**
	 * A call times out after the wait Redis's recent answers earned it: the timeout, or
	 * twice a recent slow answer up to {@link ReplyTimes#CEILING} (a warm-up answered in
	 * 28 ms on a loaded machine made it 55 ms); never the grace of a busy JVM.
	 */
	private static void timedOutAfterItsPatience(Throwable timeout) {
		assertThat(timeout.getMessage()).matches("Rate-limit script timed out after \\d+ ms");
		long waited = Long.parseLong(timeout.getMessage().replaceAll("\\D+", ""));
		assertThat(waited).isBetween(TIMEOUT.toMillis(), ReplyTimes.CEILING.toMillis());
	}

	private void withLongerTimeout(BiConsumer<RedisRateLimiter, LettuceConnectionFactory> test) {
		LettuceConnectionFactory factory = LimiterConnectionFactories.dedicated(this.application,
				Duration.ofMillis(500));
		try (RedisRateLimiter limiter = RedisRateLimiter.builder(factory).build()) {
			assertThat(limiter.acquire("warm", this.limit).isAllowed()).isTrue();
			test.accept(limiter, factory);
		}
		finally {
			factory.destroy();
		}
	}

	private void pauseRedisFor(Duration pause) {
		this.redis.pause();
		CompletableFuture.delayedExecutor(pause.toNanos(), TimeUnit.NANOSECONDS).execute(this.redis::resume);
	}

	private void stallEventLoops(Duration stall) {
		stallEventLoops(this.dedicated, stall);
	}

	private void stallEventLoops(LettuceConnectionFactory factory, Duration stall) {
		EventLoopGroupProvider provider = factory.getRequiredNativeClient().getResources().eventLoopGroupProvider();
		EventLoopGroup group = provider.allocate(Transports.eventLoopGroupClass());
		try {
			group.forEach((loop) -> loop.execute(() -> LockSupport.parkNanos(stall.toNanos())));
		}
		finally {
			provider.release(group, 0, 0, TimeUnit.SECONDS);
		}
	}

}
