package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.Decision;
import dev.limiter.Limit;

/**
 * The sliding-window log in Redis, beside its script
 * ({@code META-INF/scripts/sliding_window_log.lua}): which keys a call touches, how its
 * arguments are laid out and how the reply reads as a {@link Decision}. The transport is
 * {@link RedisScriptExecutor}'s job.
 */
final class SlidingWindowLogScript {

	/** The script, read once, its SHA-1 computed once. */
	static final RedisScript<List<Long>> SCRIPT = LoadedScript.load("META-INF/scripts/sliding_window_log.lua");

	private static final byte[] SERVER_TIME = ascii(-1);

	private static final byte[] ONE = ascii(1);

	private static final byte[] COUNT_REJECTED = ascii(1);

	private static final byte[] IGNORE_REJECTED = ascii(0);

	private SlidingWindowLogScript() {
	}

	/**
	 * Return the keys of a call: one sorted set per limit, all under the caller key's
	 * hash tag. The log's keys carry no algorithm name, so that keys written by earlier
	 * versions keep counting.
	 */
	static byte[][] keys(String prefix, String key, List<Limit> limits) {
		byte[][] keys = new byte[limits.size()][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = RedisKeys.key(prefix, key, limits.get(i)).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	/**
	 * Return the arguments of a call.
	 * @param permits the permits
	 * @param nowMicros the client's clock, or a negative value for the server's
	 * @param countRejected whether a rejected call is recorded too
	 * @param member the call's unique member
	 * @param limits the limits
	 * @return the arguments
	 */
	static byte[][] args(long permits, long nowMicros, boolean countRejected, String member, List<Limit> limits) {
		byte[][] args = new byte[4 + 2 * limits.size()][];
		args[0] = (permits == 1) ? ONE : ascii(permits);
		args[1] = (nowMicros < 0) ? SERVER_TIME : ascii(nowMicros);
		args[2] = countRejected ? COUNT_REJECTED : IGNORE_REJECTED;
		args[3] = member.getBytes(StandardCharsets.US_ASCII);
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			args[4 + 2 * i] = ascii(limit.threshold());
			args[5 + 2 * i] = ascii(limit.periodMicros());
		}
		return args;
	}

	/**
	 * Read the script's reply: allowed, deciding limit (1-based), remaining, retry-after
	 * µs, reset-after µs, now µs.
	 */
	static Decision read(List<Long> reply, List<Limit> limits) {
		if (reply == null || reply.size() != 6) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		Limit decider = limits.get(reply.get(1).intValue() - 1);
		long remaining = reply.get(2);
		Duration resetAfter = micros(reply.get(4));
		long now = reply.get(5);
		if (reply.get(0) == 1L) {
			return Decision.allowed(decider, remaining, resetAfter, now);
		}
		return Decision.rejected(decider, remaining, micros(reply.get(3)), resetAfter, now);
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(Math.multiplyExact(Math.max(0, micros), 1_000L));
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
