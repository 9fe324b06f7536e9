package dev.limiter.redis;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.Usage;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Decisions;
import dev.limiter.internal.WatchedDecision;
import dev.limiter.internal.redis.RedisKeys;

/**
 * The engine of {@link RedisRateLimiter}: every limit of a key in Redis, decided by one
 * script call through a {@link RedisScriptExecutor}.
 */
final class RedisEngine extends AbstractRateLimiter implements AutoCloseable {

	private final RedisScriptExecutor executor;

	private final String keyPrefix;

	private final Clock clock;

	private final boolean countRejected;

	private final String tokenPrefix;

	private final AtomicLong sequence = new AtomicLong();

	/** Whether the store may be a cluster, as the executor tells: it cannot always. */
	private final boolean mayBeCluster;

	/** Whether the store refused the keys of several slots in one script: a cluster. */
	private volatile boolean renewsPerSlot;

	RedisEngine(RedisScriptExecutor executor, String keyPrefix, Clock clock, boolean countRejected) {
		this.executor = executor;
		this.keyPrefix = keyPrefix;
		this.clock = clock;
		this.countRejected = countRejected;
		this.mayBeCluster = executor.mayBeCluster();
		// Members must be unique across instances and calls: a random instance part and a
		// counter, never a timestamp that two calls can share.
		this.tokenPrefix = Long.toString(ThreadLocalRandom.current().nextLong() >>> 16, 36) + "-";
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		String member = member();
		List<Long> reply = this.executor.execute(LimitScript.acquireScript(limits, this.countRejected),
				LimitScript.keys(this.keyPrefix, key, limits), acquireArgs(permits, member, limits));
		return holding(Decisions.granting(LimitScript.read(reply, limits), key, permits, limits, member));
	}

	@Override
	protected CompletableFuture<Decision> doAcquireAsync(String key, long permits, List<Limit> limits) {
		String member = member();
		return this.executor
			.executeAsync(LimitScript.acquireScript(limits, this.countRejected),
					LimitScript.keys(this.keyPrefix, key, limits), acquireArgs(permits, member, limits))
			.thenApply((reply) -> holding(
					Decisions.granting(LimitScript.read(reply, limits), key, permits, limits, member)));
	}

	/**
	 * Decide the enforced and the watching limits of a call in one script call, which
	 * asks the watching limits once the enforced ones admit it; on a Redis Cluster, whose
	 * scripts touch one slot, only when both keys hash to one slot.
	 */
	@Override
	protected WatchedDecision doAcquire(CheckedCall enforced, CheckedCall watched) {
		if (!oneSlot(enforced, watched)) {
			return super.doAcquire(enforced, watched);
		}
		String member = member();
		List<Long> reply = this.executor.execute(script(enforced, watched),
				LimitScript.keys(this.keyPrefix, enforced, watched),
				LimitScript.acquireArgs(now(), this.countRejected, member, enforced, watched));
		return watched(reply, enforced, watched, member);
	}

	@Override
	protected CompletableFuture<WatchedDecision> doAcquireAsync(CheckedCall enforced, CheckedCall watched) {
		if (!oneSlot(enforced, watched)) {
			return super.doAcquireAsync(enforced, watched);
		}
		String member = member();
		return this.executor
			.executeAsync(script(enforced, watched), LimitScript.keys(this.keyPrefix, enforced, watched),
					LimitScript.acquireArgs(now(), this.countRejected, member, enforced, watched))
			.thenApply((reply) -> watched(reply, enforced, watched, member));
	}

	/**
	 * Whether two calls can share a script call: always on one server, on a cluster (or a
	 * store that cannot tell, such as Jedis through Spring Data) when their keys share a
	 * slot.
	 */
	private boolean oneSlot(CheckedCall enforced, CheckedCall watched) {
		return !this.mayBeCluster || RedisKeys.slot(enforced.key()) == RedisKeys.slot(watched.key());
	}

	private static RedisScript<List<Long>> script(CheckedCall enforced, CheckedCall watched) {
		return LimitScript.script(LimitScript.both(enforced, watched));
	}

	private WatchedDecision watched(List<Long> reply, CheckedCall enforced, CheckedCall watched, String member) {
		Decision[] decisions = LimitScript.read(reply, enforced.limits(), watched.limits());
		Decision first = holding(
				Decisions.granting(decisions[0], enforced.key(), enforced.permits(), enforced.limits(), member));
		Decision second = (decisions[1] != null)
				? holding(Decisions.granting(decisions[1], watched.key(), watched.permits(), watched.limits(), member))
				: null;
		return new WatchedDecision(first, second);
	}

	@Override
	protected List<Usage> doUsage(String key, List<Limit> limits) {
		List<Long> reply = this.executor.execute(LimitScript.script(limits),
				LimitScript.keys(this.keyPrefix, key, limits), LimitScript.usageArgs(now(), limits));
		return LimitScript.readUsage(reply, limits);
	}

	@Override
	protected void doReset(String key, List<Limit> limits) {
		this.executor.execute(LimitScript.script(limits), LimitScript.keys(this.keyPrefix, key, limits),
				LimitScript.forgetArgs(now(), limits));
	}

	@Override
	protected Decision doCharge(Decision decision, Decision.Grant grant, long permits) {
		List<Long> reply = this.executor.execute(LimitScript.script(grant.limits()),
				LimitScript.keys(this.keyPrefix, grant.key(), grant.limits()),
				LimitScript.chargeArgs(now(), grant, permits));
		return Decisions.charged(LimitScript.read(reply, grant.limits()), decision);
	}

	@Override
	protected CompletableFuture<Decision> doChargeAsync(Decision decision, Decision.Grant grant, long permits) {
		return this.executor
			.executeAsync(LimitScript.script(grant.limits()),
					LimitScript.keys(this.keyPrefix, grant.key(), grant.limits()),
					LimitScript.chargeArgs(now(), grant, permits))
			.thenApply((reply) -> Decisions.charged(LimitScript.read(reply, grant.limits()), decision));
	}

	@Override
	protected void doMoveToNow(Decision.Grant grant) {
		this.executor.execute(LimitScript.script(grant.limits()),
				LimitScript.keys(this.keyPrefix, grant.key(), grant.limits()), LimitScript.moveArgs(now(), grant));
	}

	@Override
	protected void doRelease(Decision.Grant grant) {
		this.executor.execute(LimitScript.releaseScript(grant.limits()),
				LimitScript.keys(this.keyPrefix, grant.key(), grant.limits()), LimitScript.releaseArgs(now(), grant));
	}

	@Override
	protected void doFinish(Decision.Grant grant, List<Limit> inFlight) {
		this.executor.execute(LimitScript.releaseScript(inFlight),
				LimitScript.keys(this.keyPrefix, grant.key(), inFlight),
				LimitScript.releaseArgs(now(), grant, inFlight));
	}

	/**
	 * Renew every running call's leases in one script call; on a Redis Cluster, which
	 * refuses keys of several slots in one script, one call per slot that holds some, all
	 * sent at once: one round trip however many calls run.
	 */
	@Override
	protected void doRenew(List<Decision.Grant> grants) {
		if (!this.renewsPerSlot) {
			LimitScript.Renewal renewal = LimitScript.renewal(this.keyPrefix, now(), grants);
			try {
				this.executor.execute(LimitScript.renewScript(), renewal.keys(), renewal.args());
				return;
			}
			catch (RuntimeException ex) {
				if (!crossSlot(ex)) {
					throw ex;
				}
				this.renewsPerSlot = true;
			}
		}
		Map<Integer, List<Decision.Grant>> bySlot = new HashMap<>();
		for (Decision.Grant grant : grants) {
			bySlot.computeIfAbsent(RedisKeys.slot(grant.key()), (slot) -> new ArrayList<>()).add(grant);
		}
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(bySlot.size());
		for (List<Decision.Grant> slot : bySlot.values()) {
			LimitScript.Renewal renewal = LimitScript.renewal(this.keyPrefix, now(), slot);
			replies.add(this.executor.executeAsync(LimitScript.renewScript(), renewal.keys(), renewal.args()));
		}
		CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).join();
	}

	private static boolean crossSlot(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().contains("CROSSSLOT")) {
				return true;
			}
		}
		return false;
	}

	private byte[][] acquireArgs(long permits, String member, List<Limit> limits) {
		return LimitScript.acquireArgs(permits, now(), this.countRejected, member, limits);
	}

	private String member() {
		return this.tokenPrefix + Long.toString(this.sequence.incrementAndGet(), 36);
	}

	private long now() {
		return (this.clock != null) ? epochMicros(this.clock) : -1;
	}

	@Override
	public void close() {
		leases().stop();
		this.executor.close();
	}

}
