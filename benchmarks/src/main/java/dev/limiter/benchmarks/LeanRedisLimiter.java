package dev.limiter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.redis.RedisKeys;
import dev.limiter.redis.RedisRateLimiter;

/**
 * A prototype of a leaner client path for the same sliding-window script, to measure a
 * proposal for {@link RedisRateLimiter}: the script is sent straight through Lettuce with
 * the arguments that never change pre-encoded once per limit, instead of through Spring
 * Data Redis's script executor and string serializers. Not part of Limiter; one limit per
 * call only.
 */
final class LeanRedisLimiter {

	private static final byte[] ACQUIRE = bytes("a");

	private static final byte[] ONE = bytes("1");

	private static final byte[] ZERO = bytes("0");

	private static final byte[] SLIDING_LOG = bytes("sliding_log");

	private static final byte[] SERVER_TIME = bytes("-1");

	private static final byte[] NOT_COUNTED = bytes("0");

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String source;

	private final String sha;

	private final Limit limit;

	private final byte[] threshold;

	private final byte[] period;

	private final String tokenPrefix = Long.toString(ThreadLocalRandom.current().nextLong() >>> 16, 36) + "-";

	private final AtomicLong sequence = new AtomicLong();

	LeanRedisLimiter(RedisAsyncCommands<byte[], byte[]> commands, Limit limit) {
		this.commands = commands;
		this.limit = limit;
		this.source = RedisRateLimiter.script(List.of(limit)).getScriptAsString();
		this.sha = RedisRateLimiter.script(List.of(limit)).getSha1();
		this.threshold = bytes(Long.toString(limit.threshold()));
		this.period = bytes(Long.toString(limit.periodMicros()));
	}

	Decision acquire(String key) {
		byte[][] keys = { bytes(RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, key, this.limit)) };
		byte[] token = bytes(this.tokenPrefix + Long.toString(this.sequence.incrementAndGet(), 36));
		List<Long> result;
		try {
			result = this.commands
				.<List<Long>>evalsha(this.sha, ScriptOutputType.MULTI, keys, ACQUIRE, ONE, SERVER_TIME, NOT_COUNTED,
						token, ZERO, SLIDING_LOG, this.threshold, this.period, ZERO)
				.get();
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				throw new IllegalStateException(ex.getCause());
			}
			result = await(this.commands.<List<Long>>eval(this.source, ScriptOutputType.MULTI, keys, ACQUIRE, ONE,
					SERVER_TIME, NOT_COUNTED, token, ZERO, SLIDING_LOG, this.threshold, this.period, ZERO));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		long now = result.get(5);
		Duration resetAfter = Duration.ofNanos(result.get(4) * 1_000);
		if (result.get(0) == 1L) {
			return Decision.allowed(this.limit, result.get(2), resetAfter, now);
		}
		return Decision.rejected(this.limit, result.get(2), Duration.ofNanos(result.get(3) * 1_000), resetAfter, now);
	}

	private static <T> T await(io.lettuce.core.RedisFuture<T> future) {
		try {
			return future.get();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
