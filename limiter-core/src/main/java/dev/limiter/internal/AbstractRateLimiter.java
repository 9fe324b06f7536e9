package dev.limiter.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;

/**
 * Base class for {@link RateLimiter} implementations: checks the arguments of every call
 * once, before anything is recorded, folds limits that share a window, and lets
 * decorators pass the {@link CheckedCall} inward without checking it again.
 */
public abstract class AbstractRateLimiter implements RateLimiter {

	@Override
	public final Decision acquire(String key, long permits, List<Limit> limits) {
		return acquire(CheckedCall.of(key, permits, limits));
	}

	@Override
	public final CompletableFuture<Decision> acquireAsync(String key, long permits, List<Limit> limits) {
		return acquireAsync(CheckedCall.of(key, permits, limits));
	}

	/**
	 * Decide on a checked call.
	 * @param call the call
	 * @return the decision
	 */
	public final Decision acquire(CheckedCall call) {
		return doAcquire(call.key(), call.permits(), call.limits());
	}

	/**
	 * Decide on a checked call without blocking.
	 * @param call the call
	 * @return the decision to come
	 */
	public final CompletableFuture<Decision> acquireAsync(CheckedCall call) {
		try {
			return doAcquireAsync(call.key(), call.permits(), call.limits());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Decide a call under its enforced limits and, once they admit it, under the limits
	 * that only watch it (shadow mode) under a key of their own: what two acquires in
	 * that order decide, in one round trip where the store can.
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits, another key
	 * @return the decisions
	 */
	public final WatchedDecision acquire(CheckedCall enforced, CheckedCall watched) {
		return doAcquire(enforced, watched);
	}

	/**
	 * Decide a call under its enforced and its watching limits without blocking, as
	 * {@link #acquire(CheckedCall, CheckedCall)} does.
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits, another key
	 * @return the decisions to come
	 */
	public final CompletableFuture<WatchedDecision> acquireAsync(CheckedCall enforced, CheckedCall watched) {
		try {
			return doAcquireAsync(enforced, watched);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Decide a call under its enforced limits, then, once admitted, under its watching
	 * ones; the default asks this limiter twice, stores that answer both at once override
	 * it.
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits
	 * @return the decisions
	 */
	protected WatchedDecision doAcquire(CheckedCall enforced, CheckedCall watched) {
		return WatchedDecision.of(acquire(enforced), () -> acquire(watched));
	}

	/**
	 * Decide a call under its enforced and watching limits without blocking; the default
	 * asks this limiter twice, the second time once the first admits the call.
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits
	 * @return the decisions to come
	 */
	protected CompletableFuture<WatchedDecision> doAcquireAsync(CheckedCall enforced, CheckedCall watched) {
		return WatchedDecision.ofAsync(acquireAsync(enforced), () -> acquireAsync(watched));
	}

	/**
	 * Give back what an admitted decision of this limiter took, once; decorators override
	 * it to pass the decision to the limiter that granted it.
	 */
	@Override
	public boolean release(Decision decision) {
		Decision.Grant grant = (decision != null) ? decision.grant() : null;
		if (grant == null || !Decisions.claim(grant)) {
			return false;
		}
		if (AlgorithmDescriptor.anyHoldsSlots(grant.limits())) {
			Decisions.claimSlots(grant);
			leases().drop(grant);
		}
		doRelease(grant);
		return true;
	}

	/**
	 * Give back the slots an admitted decision holds under in-flight limits, once, and
	 * stop renewing them; decorators override it to pass the decision to the limiter that
	 * granted it.
	 */
	@Override
	public boolean finish(Decision decision) {
		Decision.Grant grant = (decision != null) ? decision.grant() : null;
		if (grant == null || !AlgorithmDescriptor.anyHoldsSlots(grant.limits()) || !Decisions.claimSlots(grant)) {
			return false;
		}
		leases().drop(grant);
		List<Limit> inFlight = new ArrayList<>(grant.limits().size());
		for (Limit limit : grant.limits()) {
			if (AlgorithmDescriptor.of(limit.algorithm()).holdsSlots()) {
				inFlight.add(limit);
			}
		}
		doFinish(grant, inFlight);
		return true;
	}

	/**
	 * Stop renewing the slots of a decision whose end the store could not be told (it was
	 * unreachable): they free themselves when their leases end. Decorators override it to
	 * pass the decision to the limiter that granted it.
	 * @param decision a decision of this limiter
	 */
	public void abandon(Decision decision) {
		Decision.Grant grant = (decision != null) ? decision.grant() : null;
		if (grant != null && this.leases != null) {
			this.leases.drop(grant);
		}
	}

	/**
	 * Give back the slots of a grant under its in-flight limits, for the first time. The
	 * default gives nothing back, for limiters that keep no state of their own.
	 * @param grant the grant
	 * @param inFlight its in-flight limits, at least one
	 */
	protected void doFinish(Decision.Grant grant, List<Limit> inFlight) {
	}

	/**
	 * Return the decision of a store, and keep renewing its slots when it was admitted
	 * under an in-flight limit.
	 * @param decision the decision, with its grant
	 * @return the decision
	 */
	protected final Decision holding(Decision decision) {
		Decision.Grant grant = decision.grant();
		if (grant != null && AlgorithmDescriptor.anyHoldsSlots(grant.limits())) {
			leases().hold(grant);
		}
		return decision;
	}

	/**
	 * Renew the leases of the slots of running calls this limiter granted, in one pass of
	 * the store. The default renews nothing.
	 * @param grants the grants whose calls still run
	 */
	protected void doRenew(List<Decision.Grant> grants) {
	}

	/**
	 * Return the leases of the slots in flight this limiter granted.
	 * @return the leases, made on first use
	 */
	public final Leases leases() {
		Leases current = this.leases;
		if (current == null) {
			synchronized (this) {
				current = this.leases;
				if (current == null) {
					current = new Leases(this::doRenew);
					this.leases = current;
				}
			}
		}
		return current;
	}

	private volatile Leases leases;

	/**
	 * Check a charge once and pass it to {@link #doCharge}; decorators override it to
	 * pass the decision to the limiter that granted it.
	 */
	/**
	 * The largest charge passed to a store: Lua's numbers hold integers exactly to 2^53.
	 */
	static final long MAX_CHARGE = 1L << 53;

	@Override
	public Decision charge(Decision decision, long permits) {
		Decision.Grant grant = chargeable(decision, permits);
		return (grant != null) ? doCharge(decision, grant, clamped(grant, permits)) : decision;
	}

	/**
	 * Check a charge once and pass it to {@link #doChargeAsync}.
	 */
	@Override
	public CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		Decision.Grant grant = chargeable(decision, permits);
		if (grant == null) {
			return CompletableFuture.completedFuture(decision);
		}
		try {
			return doChargeAsync(decision, grant, clamped(grant, permits));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Return the grant to charge, or {@code null} when there is nothing to charge.
	 * @param decision the decision
	 * @param permits the permits
	 * @return the grant, or {@code null}
	 * @throws IllegalArgumentException if the decision is {@code null} or a limit is a
	 * sliding log
	 */
	protected static Decision.Grant chargeable(Decision decision, long permits) {
		if (decision == null) {
			throw new IllegalArgumentException("decision must not be null");
		}
		Decision.Grant grant = decision.grant();
		if (grant == null || !decision.isAllowed() || permits == 0) {
			return null;
		}
		for (Limit limit : grant.limits()) {
			if (limit.algorithm() == Algorithm.SLIDING_LOG) {
				throw new IllegalArgumentException("A charge is not supported under the sliding log, which keeps one "
						+ "entry per permit: count " + limit + " with sliding buckets, a token bucket or a calendar");
			}
			if (limit.algorithm() == Algorithm.IN_FLIGHT) {
				throw new IllegalArgumentException("A charge is not supported under an in-flight limit, which counts "
						+ "calls running, not their cost: " + limit);
			}
		}
		return grant;
	}

	/**
	 * Less than the reservation gives back at most the reservation; more than any window
	 * can tell apart is cut to the most that can: every limit held for the longest period
	 * a limit may have, and never past 2^53, the integers Lua's numbers and Redis's
	 * counters hold exactly. A charge of {@code Long.MAX_VALUE} used to overflow back
	 * into room.
	 */
	static long clamped(Decision.Grant grant, long permits) {
		long ceiling = MAX_CHARGE;
		long longest = Limit.MAX_PERIOD.toMillis();
		for (Limit limit : grant.limits()) {
			long period = Math.max(1, limit.period().toMillis());
			long periods = (longest + period - 1) / period;
			long most = (periods > ceiling / limit.threshold()) ? ceiling : limit.threshold() * periods;
			ceiling = Math.min(ceiling, most);
		}
		return Math.max(Math.min(permits, ceiling), -grant.permits());
	}

	/**
	 * Record a checked charge of a grant this limiter made. The default records nothing.
	 * @param decision the decision charged
	 * @param grant its grant
	 * @param permits the permits to add, or to give back when negative, never 0
	 * @return the decision after the charge
	 */
	protected Decision doCharge(Decision decision, Decision.Grant grant, long permits) {
		return decision;
	}

	/**
	 * Record a checked charge without blocking; the default charges on the calling
	 * thread.
	 * @param decision the decision charged
	 * @param grant its grant
	 * @param permits the permits to add, or to give back when negative, never 0
	 * @return the decision after the charge, to come
	 */
	protected CompletableFuture<Decision> doChargeAsync(Decision decision, Decision.Grant grant, long permits) {
		return CompletableFuture.completedFuture(doCharge(decision, grant, permits));
	}

	/**
	 * Count an admitted decision's permits from now on rather than from when it was
	 * decided, as if the call had been made now: for calls whose real moment is later
	 * than their turn, such as a request that a third party receives after its connection
	 * opened. The token bucket, which keeps no times, is unchanged. Decorators override
	 * it to pass the decision to the limiter that granted it.
	 */
	@Override
	public boolean moveToNow(Decision decision) {
		Decision.Grant grant = (decision != null && decision.isAllowed()) ? decision.grant() : null;
		if (grant == null || Decisions.isClaimed(grant)) {
			return false;
		}
		doMoveToNow(grant);
		return true;
	}

	/**
	 * Move the permits of a grant this limiter made to now. The default moves nothing.
	 * @param grant the grant
	 */
	protected void doMoveToNow(Decision.Grant grant) {
	}

	/**
	 * Check the arguments once and read the usage; decorators override {@link #doUsage}
	 * to pass it on.
	 */
	@Override
	public final List<Usage> usage(String key, List<Limit> limits) {
		validate(key, 1, limits);
		return doUsage(key, List.copyOf(limits));
	}

	/**
	 * Check the arguments once and reset the key; decorators override {@link #doReset} to
	 * pass it on.
	 */
	@Override
	public final void reset(String key, List<Limit> limits) {
		validate(key, 1, limits);
		doReset(key, List.copyOf(limits));
	}

	/**
	 * Forget what a key counted under validated limits.
	 * @param key the key, not blank
	 * @param limits at least one limit
	 */
	protected void doReset(String key, List<Limit> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot reset a key");
	}

	/**
	 * Give back the permits of a grant, which this limiter made and which is released for
	 * the first time. The default gives nothing back, for limiters that keep no state of
	 * their own.
	 * @param grant the grant
	 */
	protected void doRelease(Decision.Grant grant) {
	}

	/**
	 * Read the usage of validated limits.
	 * @param key the key, not blank
	 * @param limits at least one limit
	 * @return the usage of each limit, in order
	 */
	protected List<Usage> doUsage(String key, List<Limit> limits) {
		throw new UnsupportedOperationException(getClass().getName() + " does not report usage");
	}

	/**
	 * Return the arguments a decorator's {@code doAcquire} received as the checked call
	 * they are, to pass inward.
	 * @param key the key {@code doAcquire} received
	 * @param permits the permits {@code doAcquire} received
	 * @param limits the limits {@code doAcquire} received
	 * @return the call
	 */
	protected static CheckedCall checked(String key, long permits, List<Limit> limits) {
		return CheckedCall.trusted(key, permits, limits);
	}

	/**
	 * Pass a checked call to another limiter, checking it again only when that limiter is
	 * neither an {@code AbstractRateLimiter} nor one of Limiter's facades over one.
	 * @param delegate the limiter
	 * @param call the call
	 * @return the decision
	 */
	protected static Decision acquire(RateLimiter delegate, CheckedCall call) {
		AbstractRateLimiter engine = Engines.of(delegate);
		return (engine != null) ? engine.acquire(call) : delegate.acquire(call.key(), call.permits(), call.limits());
	}

	/**
	 * Pass a checked call to another limiter without blocking.
	 * @param delegate the limiter
	 * @param call the call
	 * @return the decision to come
	 */
	protected static CompletableFuture<Decision> acquireAsync(RateLimiter delegate, CheckedCall call) {
		AbstractRateLimiter engine = Engines.of(delegate);
		if (engine != null) {
			return engine.acquireAsync(call);
		}
		try {
			return delegate.acquireAsync(call.key(), call.permits(), call.limits());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Pass a call under enforced and watching limits to another limiter, as two acquires
	 * when it is neither an {@code AbstractRateLimiter} nor one of Limiter's facades.
	 * @param delegate the limiter
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits
	 * @return the decisions
	 */
	protected static WatchedDecision acquire(RateLimiter delegate, CheckedCall enforced, CheckedCall watched) {
		AbstractRateLimiter engine = Engines.of(delegate);
		return (engine != null) ? engine.acquire(enforced, watched)
				: WatchedDecision.of(acquire(delegate, enforced), () -> acquire(delegate, watched));
	}

	/**
	 * Pass a call under enforced and watching limits to another limiter without blocking.
	 * @param delegate the limiter
	 * @param enforced the call under its enforced limits
	 * @param watched the call under its watching limits
	 * @return the decisions to come
	 */
	protected static CompletableFuture<WatchedDecision> acquireAsync(RateLimiter delegate, CheckedCall enforced,
			CheckedCall watched) {
		AbstractRateLimiter engine = Engines.of(delegate);
		if (engine != null) {
			return engine.acquireAsync(enforced, watched);
		}
		return WatchedDecision.ofAsync(acquireAsync(delegate, enforced), () -> acquireAsync(delegate, watched));
	}

	/**
	 * Decide on a validated call.
	 * @param key the key, not blank
	 * @param permits the permits, 1 to the smallest threshold
	 * @param limits at least one limit, no two sharing a window
	 * @return the decision
	 */
	protected abstract Decision doAcquire(String key, long permits, List<Limit> limits);

	/**
	 * Decide on a validated call without blocking. The default decides at once with
	 * {@link #doAcquire}, which suits limiters that never wait (in memory); limiters that
	 * wait on a store override it.
	 * @param key the key, not blank
	 * @param permits the permits, 1 to the smallest threshold
	 * @param limits at least one limit, no two sharing a window
	 * @return the decision to come
	 */
	protected CompletableFuture<Decision> doAcquireAsync(String key, long permits, List<Limit> limits) {
		return CompletableFuture.completedFuture(doAcquire(key, permits, limits));
	}

	/**
	 * Check the arguments of a call.
	 * @param key the key
	 * @param permits the permits
	 * @param limits the limits
	 * @return the limits, of those that share a window only the one with the lowest
	 * threshold
	 * @throws IllegalArgumentException naming the argument and its allowed range
	 */
	public static List<Limit> validate(String key, long permits, List<Limit> limits) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be null or blank");
		}
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("limits must contain at least one limit");
		}
		long smallest = Long.MAX_VALUE;
		List<Limit> distinct = null;
		for (int i = 0; i < limits.size(); i++) {
			Limit limit = limits.get(i);
			if (limit == null) {
				throw new IllegalArgumentException("limits must not contain null");
			}
			if (!limit.algorithm().isStored()) {
				throw new IllegalArgumentException("limits must be counted by a store, but " + limit
						+ " is adaptive: each instance decides it before the store is asked "
						+ "(limiter.limits.<name>.algorithm: adaptive)");
			}
			smallest = Math.min(smallest, limit.threshold());
			for (int j = 0; j < i; j++) {
				if (limits.get(j).sameWindowAs(limit)) {
					distinct = (distinct != null) ? distinct : new ArrayList<>(limits.subList(0, i));
					break;
				}
			}
			if (distinct != null) {
				keepLowest(distinct, limit);
			}
		}
		if (permits < 1 || permits > smallest) {
			throw new IllegalArgumentException(
					"permits must be between 1 and the smallest threshold (" + smallest + "), was " + permits);
		}
		return (distinct != null) ? List.copyOf(distinct) : limits;
	}

	/**
	 * Return a clock's reading in microseconds since the epoch, the unit of time inside
	 * the stores.
	 * @param clock the clock
	 * @return the current time in microseconds
	 */
	protected static long epochMicros(Clock clock) {
		Instant instant = clock.instant();
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
	}

	/**
	 * Return a duration of microseconds, negative values taken as zero.
	 * @param micros the microseconds
	 * @return the duration
	 */
	protected static Duration ofMicros(long micros) {
		return Duration.ofNanos(Math.multiplyExact(Math.max(0, micros), 1_000L));
	}

	/**
	 * Add a limit to distinct ones unless one of them counts in the same state; limits
	 * that share their state count the same calls, so the lowest threshold is the one
	 * that decides, and the only one kept.
	 */
	private static void keepLowest(List<Limit> distinct, Limit limit) {
		for (int i = 0; i < distinct.size(); i++) {
			if (distinct.get(i).sameWindowAs(limit)) {
				if (limit.threshold() < distinct.get(i).threshold()) {
					distinct.set(i, limit);
				}
				return;
			}
		}
		distinct.add(limit);
	}

}
