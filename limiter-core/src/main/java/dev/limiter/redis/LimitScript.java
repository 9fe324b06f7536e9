package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.Usage;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.internal.redis.RedisKeys;

/**
 * Limiter's script in Redis: which script a call runs, which keys it touches, how its
 * arguments are laid out and how the reply reads. {@link ScriptSources} composes the
 * scripts; the transport is {@link RedisScriptExecutor}'s job.
 * <p>
 * A call runs the script composed of the fragments of exactly the algorithms its limits
 * use, so a call under one algorithm carries no other's code. The commonest acquire, one
 * limit with rejected calls not recorded, runs its algorithm's single-limit script: the
 * same decision in fewer Lua steps.
 */
final class LimitScript {

	// The script holds the stored algorithms only, whose ordinals come first.
	private static final Algorithm[] ALGORITHMS = AlgorithmDescriptor.stored().toArray(new Algorithm[0]);

	private static final LoadedScript[] SCRIPTS = compose();

	private static final LoadedScript[] SINGLE_LIMIT_SCRIPTS = singleLimitScripts();

	/**
	 * The single-limit release of each algorithm whose release loads nothing, else null.
	 */
	private static final LoadedScript[] SINGLE_RELEASE_SCRIPTS = singleReleaseScripts();

	private static final byte[] ACQUIRE = ascii("a");

	private static final byte[] USAGE = ascii("u");

	private static final byte[] RELEASE = ascii("r");

	private static final byte[] FORGET = ascii("x");

	private static final byte[] CHARGE = ascii("c");

	private static final byte[] MOVE = ascii("m");

	private static final byte[] RENEW = ascii("l");

	private static final RedisScript<List<Long>> RENEW_SCRIPT = SCRIPTS[1 << Algorithm.IN_FLIGHT.ordinal()];

	private static final byte[] SERVER_TIME = ascii(-1);

	private static final byte[] ZERO = ascii(0);

	private static final byte[] ONE = ascii(1);

	private static final byte[][] CODES = new byte[ALGORITHMS.length][];

	static {
		for (Algorithm algorithm : ALGORITHMS) {
			CODES[algorithm.ordinal()] = ascii(code(algorithm));
		}
	}

	private LimitScript() {
	}

	/**
	 * Return the script for a call's limits.
	 */
	static RedisScript<List<Long>> script(List<Limit> limits) {
		int mask = 0;
		for (int i = 0; i < limits.size(); i++) {
			mask |= 1 << limits.get(i).algorithm().ordinal();
		}
		return SCRIPTS[mask];
	}

	/**
	 * Return the script of an acquire: the single-limit script of its limit's algorithm
	 * for one limit without a penalty when rejected calls are not recorded, otherwise the
	 * composed script.
	 */
	static RedisScript<List<Long>> acquireScript(List<Limit> limits, boolean countRejected) {
		if (limits.size() == 1 && !countRejected && limits.get(0).penalty().isZero()) {
			return SINGLE_LIMIT_SCRIPTS[limits.get(0).algorithm().ordinal()];
		}
		return script(limits);
	}

	/**
	 * Return the script of a release: the single-limit release of its limit's algorithm
	 * for one limit whose release loads nothing, otherwise the composed script.
	 */
	static RedisScript<List<Long>> releaseScript(List<Limit> limits) {
		if (limits.size() == 1) {
			LoadedScript single = SINGLE_RELEASE_SCRIPTS[limits.get(0).algorithm().ordinal()];
			if (single != null) {
				return single;
			}
		}
		return script(limits);
	}

	/**
	 * Return the keys of a call: one per limit, all under the caller key's hash tag.
	 */
	static byte[][] keys(String prefix, String key, List<Limit> limits) {
		byte[][] keys = new byte[limits.size()][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = RedisKeys.key(prefix, key, limits.get(i)).getBytes(StandardCharsets.UTF_8);
		}
		return keys;
	}

	/**
	 * Return the arguments of an acquire.
	 * @param permits the permits
	 * @param nowMicros the client's clock, or a negative value for the server's
	 * @param countRejected whether a rejected call is recorded too
	 * @param member the call's unique member
	 * @param limits the limits
	 * @return the arguments
	 */
	static byte[][] acquireArgs(long permits, long nowMicros, boolean countRejected, String member,
			List<Limit> limits) {
		return args(ACQUIRE, permits, nowMicros, countRejected, member, 0, limits);
	}

	/**
	 * Return the keys of a call under enforced limits and limits that watch it under
	 * another key: the enforced limits' keys first.
	 */
	static byte[][] keys(String prefix, CheckedCall enforced, CheckedCall watched) {
		byte[][] first = keys(prefix, enforced.key(), enforced.limits());
		byte[][] second = keys(prefix, watched.key(), watched.limits());
		byte[][] keys = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, keys, first.length, second.length);
		return keys;
	}

	/**
	 * Return the arguments of an acquire under enforced limits and, in the same call, the
	 * limits that watch it: the enforced limits first, their number in place of a
	 * released call's time.
	 */
	static byte[][] acquireArgs(long nowMicros, boolean countRejected, String member, CheckedCall enforced,
			CheckedCall watched) {
		return args(ACQUIRE, enforced.permits(), nowMicros, countRejected, member, enforced.limits().size(),
				both(enforced, watched));
	}

	/** Return the limits of a call under enforced and watching limits, in key order. */
	static List<Limit> both(CheckedCall enforced, CheckedCall watched) {
		List<Limit> limits = new ArrayList<>(enforced.limits().size() + watched.limits().size());
		limits.addAll(enforced.limits());
		limits.addAll(watched.limits());
		return limits;
	}

	/** Return the arguments of a usage query. */
	static byte[][] usageArgs(long nowMicros, List<Limit> limits) {
		return args(USAGE, 1, nowMicros, false, "", 0, limits);
	}

	/** Return the arguments that forget a key's state. */
	static byte[][] forgetArgs(long nowMicros, List<Limit> limits) {
		return args(FORGET, 1, nowMicros, false, "", 0, limits);
	}

	/** Return the arguments that give back a grant. */
	static byte[][] releaseArgs(long nowMicros, Decision.Grant grant) {
		return args(RELEASE, grant.permits(), nowMicros, false, grant.member(), grant.atMicros(), grant.limits());
	}

	/** Return the arguments that give back a grant's slots under some of its limits. */
	static byte[][] releaseArgs(long nowMicros, Decision.Grant grant, List<Limit> limits) {
		return args(RELEASE, grant.permits(), nowMicros, false, grant.member(), grant.atMicros(), limits);
	}

	/** Return the script that renews leases of slots in flight. */
	static RedisScript<List<Long>> renewScript() {
		return RENEW_SCRIPT;
	}

	/**
	 * Return the keys and arguments that renew the leases of running calls' slots, all in
	 * one Redis Cluster slot: a key and a member per slot held.
	 */
	static Renewal renewal(String prefix, long nowMicros, List<Decision.Grant> grants) {
		List<byte[]> keys = new ArrayList<>();
		List<byte[]> args = new ArrayList<>();
		args.add(RENEW);
		args.add(ONE);
		args.add((nowMicros < 0) ? SERVER_TIME : ascii(nowMicros));
		args.add(ZERO);
		for (Decision.Grant grant : grants) {
			for (Limit limit : grant.limits()) {
				if (limit.algorithm() != Algorithm.IN_FLIGHT) {
					continue;
				}
				byte[] key = RedisKeys.key(prefix, grant.key(), limit).getBytes(StandardCharsets.UTF_8);
				byte[] lease = ascii(limit.periodMicros());
				for (long p = 1; p <= grant.permits(); p++) {
					keys.add(key);
					args.add(ascii((grant.permits() == 1) ? grant.member() : grant.member() + "." + p));
					args.add(lease);
				}
			}
		}
		return new Renewal(keys.toArray(byte[][]::new), args.toArray(byte[][]::new));
	}

	/** The keys and arguments of one renewal call. */
	record Renewal(byte[][] keys, byte[][] args) {
	}

	/** Return the arguments that move a grant's permits to now. */
	static byte[][] moveArgs(long nowMicros, Decision.Grant grant) {
		return args(MOVE, grant.permits(), nowMicros, false, grant.member(), grant.atMicros(), grant.limits());
	}

	/** Return the arguments that charge a grant's limits more, or less when negative. */
	static byte[][] chargeArgs(long nowMicros, Decision.Grant grant, long permits) {
		return args(CHARGE, permits, nowMicros, false, grant.member(), grant.atMicros(), grant.limits());
	}

	private static byte[][] args(byte[] mode, long permits, long nowMicros, boolean countRejected, String member,
			long atMicros, List<Limit> limits) {
		byte[][] args = new byte[6 + 5 * limits.size()][];
		args[0] = mode;
		args[1] = (permits == 1) ? ONE : ascii(permits);
		args[2] = (nowMicros < 0) ? SERVER_TIME : ascii(nowMicros);
		args[3] = countRejected ? ONE : ZERO;
		args[4] = member.getBytes(StandardCharsets.US_ASCII);
		args[5] = (atMicros == 0) ? ZERO : ascii(atMicros);
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			args[6 + 5 * i] = CODES[limit.algorithm().ordinal()];
			args[7 + 5 * i] = ascii(limit.threshold());
			args[8 + 5 * i] = ascii(limit.periodMicros());
			args[9 + 5 * i] = unit(limit, nowMicros);
			args[10 + 5 * i] = limit.penalty().isZero() ? ZERO : ascii(limit.penaltyMicros());
		}
		return args;
	}

	/**
	 * Read an acquire's reply: allowed, deciding limit (1-based), remaining, retry-after
	 * µs, reset-after µs, now µs.
	 */
	static Decision read(List<Long> reply, List<Limit> limits) {
		if (reply == null || reply.size() != 6) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		return read(reply, 0, limits);
	}

	/**
	 * Read the reply of an acquire under enforced and watching limits: the enforced
	 * limits' six values, then, when they admitted the call, the watching limits' six.
	 * @return the two decisions, the second {@code null} when the call was rejected
	 */
	static Decision[] read(List<Long> reply, List<Limit> enforced, List<Limit> watched) {
		if (reply == null || reply.size() != ((!reply.isEmpty() && reply.get(0) == 1L) ? 12 : 6)) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		Decision first = read(reply, 0, enforced);
		return new Decision[] { first, first.isAllowed() ? read(reply, 6, watched) : null };
	}

	private static Decision read(List<Long> reply, int from, List<Limit> limits) {
		Limit decider = limits.get(reply.get(from + 1).intValue() - 1);
		long remaining = reply.get(from + 2);
		Duration resetAfter = micros(reply.get(from + 4));
		long now = reply.get(from + 5);
		if (reply.get(from) == 1L) {
			return Decision.allowed(decider, remaining, resetAfter, now);
		}
		return Decision.rejected(decider, remaining, micros(reply.get(from + 3)), resetAfter, now);
	}

	/**
	 * Read a usage reply: used, remaining, reset-after µs, current slice and penalty left
	 * µs per limit, then now µs.
	 */
	static List<Usage> readUsage(List<Long> reply, List<Limit> limits) {
		if (reply == null || reply.size() != 5 * limits.size() + 1) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + reply);
		}
		List<Usage> usage = new ArrayList<>(limits.size());
		for (int i = 0; i < limits.size(); i++) {
			usage.add(new Usage(limits.get(i), reply.get(5 * i), reply.get(5 * i + 1), micros(reply.get(5 * i + 2)),
					reply.get(5 * i + 3), micros(reply.get(5 * i + 4))));
		}
		return usage;
	}

	private static String code(Algorithm algorithm) {
		return AlgorithmDescriptor.of(algorithm).code();
	}

	private static byte[] unit(Limit limit, long nowMicros) {
		AlgorithmDescriptor descriptor = AlgorithmDescriptor.of(limit.algorithm());
		if (descriptor.unitDependsOnTime()) {
			long clientMicros = (nowMicros >= 0) ? nowMicros : System.currentTimeMillis() * 1_000;
			return ascii(descriptor.unitArgument(limit, clientMicros));
		}
		return ascii(descriptor.unitMicros(limit));
	}

	private static LoadedScript[] compose() {
		LoadedScript[] scripts = new LoadedScript[1 << ALGORITHMS.length];
		for (int mask = 1; mask < scripts.length; mask++) {
			List<String> codes = new ArrayList<>();
			for (Algorithm algorithm : ALGORITHMS) {
				if ((mask & (1 << algorithm.ordinal())) != 0) {
					codes.add(code(algorithm));
				}
			}
			scripts[mask] = new LoadedScript(ScriptSources.composed(codes));
		}
		return scripts;
	}

	private static LoadedScript[] singleLimitScripts() {
		LoadedScript[] scripts = new LoadedScript[ALGORITHMS.length];
		for (Algorithm algorithm : ALGORITHMS) {
			scripts[algorithm.ordinal()] = new LoadedScript(ScriptSources.single(code(algorithm)));
		}
		return scripts;
	}

	private static LoadedScript[] singleReleaseScripts() {
		LoadedScript[] scripts = new LoadedScript[ALGORITHMS.length];
		for (Algorithm algorithm : ALGORITHMS) {
			if (ScriptSources.releasesUnloaded(code(algorithm))) {
				scripts[algorithm.ordinal()] = new LoadedScript(ScriptSources.singleRelease(code(algorithm)));
			}
		}
		return scripts;
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(Math.multiplyExact(Math.max(0, micros), 1_000L));
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}
