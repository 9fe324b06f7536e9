package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.MessageSource;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.cache.RejectionCache;
import dev.limiter.call.RateLimitObserver;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.internal.WatchedDecision;
import dev.limiter.internal.adaptive.AdaptiveLimit;
import dev.limiter.internal.call.CallPreparation.PreparedCall;
import dev.limiter.internal.key.CurrentRequest;
import dev.limiter.internal.limits.LocalLimit;
import dev.limiter.internal.offenders.RejectionTally;
import dev.limiter.key.RateLimitKeyResolver;

/**
 * The one decision pipeline of every surface, from a call prepared to its answer: the
 * call is prepared (plan, condition, key, the operators' numbers), decided (the rejection
 * cache's early answer, the enforced limits with the wait of {@code maxWait}, the shadow
 * limits, the observer, the listeners and the tally of the callers rejected most), then
 * settled (charge, refund).
 * <p>
 * A surface (the aspect, the reactive path, a gateway route, gRPC, GraphQL, Spring AI) is
 * an adapter: it reads its request into a {@link CallHandle}, which it keeps until the
 * call ends, decides it there (saying how it waits without blocking), and answers a
 * refusal in its protocol. None of them decides on its own. What a refusal says is
 * {@link Refusals}'; the calls that shadow limits would have refused are logged by
 * {@link ShadowLog}, the calls running under in-flight limits counted by
 * {@link CallsInFlight}.
 */
public final class CallPipeline {

	private static final Logger logger = LoggerFactory.getLogger(RateLimitAspect.class);

	private static final boolean REACTOR = org.springframework.util.ClassUtils
		.isPresent("reactor.core.scheduler.Schedulers", CallPipeline.class.getClassLoader());

	private final RateLimiter rateLimiter;

	/**
	 * Limiter's engine behind the limiter, which asks enforced and shadow limits at once.
	 */
	private final AbstractRateLimiter engine;

	// The rejection cache in front of the store, when the limiter has one.
	private final RejectionCache cache;

	private final RateLimitOperationSource operationSource;

	private final CallPreparation preparation;

	private final CurrentRequest currentRequest;

	private final Refusals refusals;

	private final List<RateLimitDecisionListener> listeners;

	private final CallClock clock;

	private final CallsInFlight inFlight = new CallsInFlight();

	private final ShadowLog shadowLog = new ShadowLog();

	private volatile RateLimitObserver observer = RateLimitObserver.NONE;

	private volatile RejectionTally rejections = RejectionTally.NONE;

	private volatile Executor endExecutor = REACTOR ? ReactiveRateLimitCall.endExecutor()
			: CallPipeline::endOnOwnThread;

	/**
	 * Create the pipeline.
	 * @param rateLimiter the engine that decides
	 * @param operationSource the source of the methods' and routes' limits
	 * @param keyResolver the resolver of the default key
	 * @param messageSource the source of localized messages, or {@code null}
	 * @param listeners told of every decision
	 * @param currentRequest finds the request a blocking call serves, or {@code null}
	 * outside web applications
	 * @param clock the time in which decisions are measured and turns waited for
	 */
	public CallPipeline(RateLimiter rateLimiter, RateLimitOperationSource operationSource,
			RateLimitKeyResolver keyResolver, MessageSource messageSource, List<RateLimitDecisionListener> listeners,
			CurrentRequest currentRequest, CallClock clock) {
		if (rateLimiter == null) {
			throw new IllegalArgumentException("rateLimiter must not be null");
		}
		if (operationSource == null) {
			throw new IllegalArgumentException("operationSource must not be null");
		}
		if (keyResolver == null) {
			throw new IllegalArgumentException("keyResolver must not be null");
		}
		this.rateLimiter = rateLimiter;
		this.engine = Engines.of(rateLimiter);
		this.cache = (rateLimiter instanceof RejectionCache rejections) ? rejections : null;
		this.operationSource = operationSource;
		this.preparation = new CallPreparation(keyResolver, operationSource.getOverrides());
		this.currentRequest = (currentRequest != null) ? currentRequest : CurrentRequest.NONE;
		this.refusals = new Refusals(messageSource);
		this.listeners = (listeners != null) ? List.copyOf(listeners) : List.of();
		this.clock = (clock != null) ? clock : CallClock.SYSTEM;
	}

	/**
	 * Observe every decision of the enforced limits, such as with Micrometer's
	 * observations.
	 * @param observer the observer, or {@code null} for none
	 */
	public void setObserver(RateLimitObserver observer) {
		this.observer = (observer != null) ? observer : RateLimitObserver.NONE;
	}

	/**
	 * Name the limits that protect the service's capacity rather than a caller's quota
	 * ({@code limiter.limits.<name>.protects: capacity}): their refusals are answered as
	 * the service being at capacity (503), not as a caller over quota (429).
	 * @param names the names of those limits
	 */
	public void setCapacityLimits(Set<String> names) {
		this.refusals.setCapacityLimits(names);
	}

	/**
	 * Count every enforced rejection by limit and key, such as for the endpoint's list of
	 * the callers rejected most.
	 * @param rejections the tally, or {@code null} for none
	 */
	public void setRejectionTally(RejectionTally rejections) {
		this.rejections = (rejections != null) ? rejections : RejectionTally.NONE;
	}

	/**
	 * Run the ends of calls that talk to the store off the threads of surfaces that may
	 * not block, such as Reactor's {@code boundedElastic} scheduler.
	 * @param executor the executor, or {@code null} for a thread of its own per end
	 */
	public void setEndExecutor(Executor executor) {
		this.endExecutor = (executor != null) ? executor : CallPipeline::endOnOwnThread;
	}

	Executor endExecutor() {
		return this.endExecutor;
	}

	/** Without Reactor, an end that may not block is rare: a daemon thread of its own. */
	private static void endOnOwnThread(Runnable end) {
		Thread thread = new Thread(end, "limiter-call-end");
		thread.setDaemon(true);
		thread.start();
	}

	/** Return the source of the operations this pipeline decides. */
	RateLimitOperationSource operations() {
		return this.operationSource;
	}

	// Prepare

	/** Prepare a call of a method served on the calling thread: plan, condition, key. */
	PreparedCall prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments) {
		return this.preparation.prepare(operation, targetClass, arguments, this.currentRequest);
	}

	/** Prepare a call of a method whose request the surface finds itself. */
	PreparedCall prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments,
			CurrentRequest request) {
		return this.preparation.prepare(operation, targetClass, arguments, request);
	}

	/** Prepare a request on a gateway route: plan, overrides, key. */
	PreparedCall prepareRoute(AnnotatedOperation route, String plan, String caller, Object request) {
		return this.preparation.prepareRoute(route, plan, caller, request);
	}

	/**
	 * Return the handle of a prepared call, which the surface keeps until the call ends.
	 * @param prepared the call, or {@code null} for a call its condition leaves unlimited
	 * @return the handle, or {@code null} for an unlimited call
	 */
	CallHandle handle(PreparedCall prepared) {
		return (prepared != null) ? new CallHandle(this, prepared) : null;
	}

	// The early answer

	/**
	 * Throw the rejection of a call that the limiter already knows, before the call's
	 * arguments exist, such as before Spring MVC resolves them; do nothing otherwise,
	 * leaving the decision to the call itself. Only methods whose limits and key need no
	 * argument are answered here (no key expression, condition or plan, and a key
	 * resolver that reads no argument), and only with a rejection the method would not
	 * wait out. Listeners and the observer are told as for a rejection of the call, with
	 * no arguments.
	 * @param method the method about to be called
	 * @param targetClass the class of the target object
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void rejectCached(Method method, Class<?> targetClass) {
		rejectCached(method, targetClass, null);
	}

	/**
	 * Throw the rejection of a call that the limiter already knows, from the arguments
	 * its key, condition and plan read ({@link #argumentsRead}), before the others are
	 * resolved; do nothing otherwise, leaving the decision to the call itself.
	 * @param method the method about to be called
	 * @param targetClass the class of the target object
	 * @param arguments the call's arguments at the indexes its limits read, {@code null}
	 * elsewhere; {@code null} for a method whose limits read none
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void rejectCached(Method method, Class<?> targetClass, Object[] arguments) {
		rejectCached(method, targetClass, arguments, this.currentRequest);
	}

	/**
	 * Throw the rejection of a call that the limiter already knows, as
	 * {@link #rejectCached(Method, Class, Object[])} does, for the request a non-blocking
	 * stack serves, which no thread holds.
	 * @param method the method about to be called
	 * @param targetClass the class of the target object
	 * @param arguments the call's arguments at the indexes its limits read, {@code null}
	 * elsewhere; {@code null} for a method whose limits read none
	 * @param request finds the request the call serves
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void rejectCached(Method method, Class<?> targetClass, Object[] arguments, CurrentRequest request) {
		if (!this.preparation.keysWithoutArguments()) {
			return;
		}
		AnnotatedOperation operation = this.operationSource.getOperation(method, targetClass);
		if (operation == null) {
			return;
		}
		PreparedCall prepared = (arguments != null)
				? this.preparation.prepare(operation, targetClass, arguments, request)
				: this.preparation.prepareWithoutArguments(operation, targetClass, request);
		Admission cached = (prepared != null) ? cachedRejection(prepared) : null;
		if (cached != null) {
			throw rejection(cached);
		}
	}

	/**
	 * Return the indexes of the parameters whose arguments a method's limits read, so
	 * that a caller can answer a cached rejection before the others are resolved.
	 * @param method the method
	 * @param targetClass the class of the target object
	 * @return the indexes (empty when the limits read none), or {@code null} when the
	 * method is not limited or its key resolver reads the arguments
	 */
	public BitSet argumentsRead(Method method, Class<?> targetClass) {
		AnnotatedOperation operation = this.operationSource.getOperation(method, targetClass);
		return (operation != null && this.preparation.keysWithoutArguments()) ? operation.argumentsRead() : null;
	}

	/**
	 * Return the rejection of a prepared call that the limiter already knows without
	 * asking the store, told to the observer and the listeners; {@code null} when it
	 * knows none, or when the call would wait it out.
	 */
	private Admission cachedRejection(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		if (this.cache == null || operation.getEnforcedLimits().isEmpty()) {
			return null;
		}
		long start = this.clock.nanoTime();
		Decision cached = this.cache.cachedRejection(prepared.key(), prepared.permits(), operation.getEnforcedLimits());
		if (cached == null || operation.waitsFor(cached)) {
			return null;
		}
		this.observer.stop(this.observer.start(operation), cached, null);
		told(prepared, cached, this.clock.nanoTime() - start);
		return new Admission(prepared, cached, null, true);
	}

	// Decide

	/**
	 * Decide a call on the calling thread: the enforced limits (a rejection due within
	 * {@code maxWait} waited out once and asked again), then, once admitted, the shadow
	 * limits. A rejection is an admission that is not admitted, never an exception. The
	 * store's rejection cache answers a caller it remembers inside the store's chain, on
	 * this thread, so the blocking path does not ask it first.
	 * @param prepared the call
	 * @return the admission
	 * @throws InterruptedException if the thread is interrupted while it waits for its
	 * turn
	 */
	Admission decide(PreparedCall prepared) throws InterruptedException {
		LocalLimit.Gate gate = prepared.operation().getGate();
		if (gate == null) {
			return decideStored(prepared);
		}
		AdaptiveLimit.Permit permit = gate.tryAcquire();
		if (permit == null) {
			return refusedByGate(prepared, gate);
		}
		Admission stored;
		try {
			stored = decideStored(prepared);
		}
		catch (RuntimeException | InterruptedException | Error ex) {
			permit.giveBack();
			throw ex;
		}
		return passed(prepared, gate, permit, stored);
	}

	/**
	 * Return the admission of a call its gate let in: given back when a stored limit
	 * refuses it; otherwise holding its permit, and reported by the gate's numbers when
	 * no stored limit decided.
	 */
	private Admission passed(PreparedCall prepared, LocalLimit.Gate gate, AdaptiveLimit.Permit permit,
			Admission stored) {
		if (!stored.admitted()) {
			permit.giveBack();
			return stored;
		}
		if (stored.enforced() != null) {
			return new Admission(prepared, stored.enforced(), stored.shadow(), false, permit);
		}
		Decision admitted = gate.admission(epochMicros());
		told(prepared, admitted, 0);
		return new Admission(prepared, admitted, stored.shadow(), false, permit);
	}

	private static long epochMicros() {
		return System.currentTimeMillis() * 1_000;
	}

	/** Refuse a call its gate has no room for, before the store is asked. */
	private Admission refusedByGate(PreparedCall prepared, LocalLimit.Gate gate) {
		Decision refused = gate.refusal(epochMicros());
		told(prepared, refused, 0);
		return new Admission(prepared, refused, null, true, null);
	}

	private Admission decideStored(PreparedCall prepared) throws InterruptedException {
		AnnotatedOperation operation = prepared.operation();
		Decision decision = null;
		Decision shadow = null;
		if (!operation.getEnforcedLimits().isEmpty()) {
			long start = this.clock.nanoTime();
			Object observation = this.observer.start(operation);
			try {
				WatchedDecision first = acquireWatched(prepared);
				decision = first.enforced();
				shadow = first.watched();
				long deadline = start + operation.getMaxWait().toNanos();
				if (operation.waitsFor(decision)) {
					// The wait is the exact time until the call fits; when another caller
					// took that turn, the call waits for the next while its wait lasts. A
					// slot in flight frees whenever a call ends: asked again after each
					// hint until the wait is spent.
					do {
						this.clock.sleep(pause(decision, deadline));
						decision = acquire(prepared);
					}
					while (pollsAgain(decision, deadline));
				}
			}
			catch (RuntimeException | InterruptedException ex) {
				this.observer.stop(observation, null, ex);
				throw ex;
			}
			this.observer.stop(observation, decision, null);
			told(prepared, decision, this.clock.nanoTime() - start);
			if (!decision.isAllowed()) {
				return new Admission(prepared, decision, null, false);
			}
		}
		if (shadow == null && !operation.getShadowLimits().isEmpty()) {
			shadow = this.rateLimiter.acquire(operation.shadowKey(prepared.key()), prepared.permits(),
					operation.getShadowLimits());
		}
		if (shadow != null) {
			watched(operation, shadow);
		}
		return new Admission(prepared, decision, shadow, false);
	}

	/**
	 * Decide a call without blocking, as {@link #decide} does: the future completes on
	 * the store's threads, or at once when the limiter knows the rejection
	 * ({@link Admission#cached()}), which a surface may answer on its own thread.
	 * @param prepared the call
	 * @param delay how the surface waits for a turn without blocking, such as
	 * {@code Mono.delay}
	 * @return the admission to come
	 */
	CompletableFuture<Admission> decideAsync(PreparedCall prepared, Delay delay) {
		LocalLimit.Gate gate = prepared.operation().getGate();
		if (gate == null) {
			return decideStoredAsync(prepared, delay);
		}
		AdaptiveLimit.Permit permit = gate.tryAcquire();
		if (permit == null) {
			return CompletableFuture.completedFuture(refusedByGate(prepared, gate));
		}
		CompletableFuture<Admission> stored;
		try {
			stored = decideStoredAsync(prepared, delay);
		}
		catch (RuntimeException | Error ex) {
			permit.giveBack();
			throw ex;
		}
		return stored.whenComplete((admission, failure) -> {
			if (failure != null) {
				permit.giveBack();
			}
		}).thenApply((admission) -> passed(prepared, gate, permit, admission));
	}

	private CompletableFuture<Admission> decideStoredAsync(PreparedCall prepared, Delay delay) {
		Admission cached = cachedRejection(prepared);
		if (cached != null) {
			return CompletableFuture.completedFuture(cached);
		}
		AnnotatedOperation operation = prepared.operation();
		CompletableFuture<WatchedDecision> enforced;
		if (operation.getEnforcedLimits().isEmpty()) {
			enforced = CompletableFuture.completedFuture(NOTHING_ENFORCED);
		}
		else {
			long start = this.clock.nanoTime();
			Object observation = this.observer.start(operation);
			long deadline = start + operation.getMaxWait().toNanos();
			enforced = acquireWatchedAsync(prepared).thenCompose((first) -> operation.waitsFor(first.enforced())
					? waitedAsync(prepared, first.enforced(), deadline, delay)
						.thenApply((decision) -> new WatchedDecision(decision, null))
					: CompletableFuture.completedFuture(first))
				.whenComplete((decisions, failure) -> {
					if (failure != null) {
						this.observer.stop(observation, null, failure);
					}
					else {
						this.observer.stop(observation, decisions.enforced(), null);
						told(prepared, decisions.enforced(), this.clock.nanoTime() - start);
					}
				});
		}
		if (operation.getShadowLimits().isEmpty()) {
			return enforced.thenApply((decisions) -> new Admission(prepared, decisions.enforced(), null, false));
		}
		return enforced.thenCompose((decisions) -> {
			Decision decision = decisions.enforced();
			if (decision != null && !decision.isAllowed()) {
				return CompletableFuture.completedFuture(new Admission(prepared, decision, null, false));
			}
			CompletableFuture<Decision> shadow = (decisions.watched() != null)
					? CompletableFuture.completedFuture(decisions.watched()) : this.rateLimiter.acquireAsync(
							operation.shadowKey(prepared.key()), prepared.permits(), operation.getShadowLimits());
			return shadow.thenApply((watched) -> {
				watched(operation, watched);
				return new Admission(prepared, decision, watched, false);
			});
		});
	}

	/** Wait for a turn, then ask again; for a slot in flight, until the wait is spent. */
	private CompletableFuture<Decision> waitedAsync(PreparedCall prepared, Decision rejected, long deadline,
			Delay delay) {
		return delay.after(pause(rejected, deadline))
			.toCompletableFuture()
			.thenCompose((waited) -> acquireAsync(prepared))
			.thenCompose((decision) -> pollsAgain(decision, deadline) ? waitedAsync(prepared, decision, deadline, delay)
					: CompletableFuture.completedFuture(decision));
	}

	/** The pause before asking again: the wait named, never past the deadline. */
	private Duration pause(Decision rejected, long deadline) {
		long left = Math.max(0, deadline - this.clock.nanoTime());
		return (rejected.limit().algorithm() == Algorithm.IN_FLIGHT && rejected.retryAfter().toNanos() > left)
				? Duration.ofNanos(left) : rejected.retryAfter();
	}

	/**
	 * Whether a call refused again after its wait asks again: when another caller took
	 * the turn it waited for and the next turn still comes within its wait; under a limit
	 * in flight, whose slot frees whenever a call ends, after each hint (a few times a
	 * second) while its wait lasts.
	 */
	private boolean pollsAgain(Decision decision, long deadline) {
		if (decision.isAllowed() || decision.isDegraded()) {
			return false;
		}
		long left = deadline - this.clock.nanoTime();
		return left > 0
				&& (decision.limit().algorithm() == Algorithm.IN_FLIGHT || decision.retryAfter().toNanos() <= left);
	}

	private Decision acquire(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		return this.rateLimiter.acquire(prepared.key(), prepared.permits(), operation.getEnforcedLimits());
	}

	/**
	 * Ask the enforced limits of a call and, when it has shadow limits and Limiter's
	 * engine decides, its shadow limits in the same round trip: they see the call only
	 * once the enforced limits admit it, as when asked after them.
	 */
	private WatchedDecision acquireWatched(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		if (this.engine == null || operation.getShadowLimits().isEmpty()) {
			return new WatchedDecision(acquire(prepared), null);
		}
		return this.engine.acquire(enforcedCall(prepared), shadowCall(prepared));
	}

	private CompletableFuture<WatchedDecision> acquireWatchedAsync(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		if (this.engine == null || operation.getShadowLimits().isEmpty()) {
			return acquireAsync(prepared).thenApply((decision) -> new WatchedDecision(decision, null));
		}
		try {
			return this.engine.acquireAsync(enforcedCall(prepared), shadowCall(prepared));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static CheckedCall enforcedCall(PreparedCall prepared) {
		return CheckedCall.of(prepared.key(), prepared.permits(), prepared.operation().getEnforcedLimits());
	}

	private static CheckedCall shadowCall(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		return CheckedCall.of(operation.shadowKey(prepared.key()), prepared.permits(), operation.getShadowLimits());
	}

	private CompletableFuture<Decision> acquireAsync(PreparedCall prepared) {
		AnnotatedOperation operation = prepared.operation();
		try {
			return this.rateLimiter.acquireAsync(prepared.key(), prepared.permits(), operation.getEnforcedLimits());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Tell the listeners of the decision of the enforced limits, and count a rejection
	 * for the list of the callers rejected most.
	 */
	/**
	 * Return the calls running on this instance under each in-flight limit.
	 * @return the tally
	 */
	public CallsInFlight inFlight() {
		return this.inFlight;
	}

	private void told(PreparedCall prepared, Decision decision, long nanos) {
		if (decision.isAllowed() && prepared.operation().storeHoldsSlots()) {
			this.inFlight.started(decision, prepared.operation().getEnforcedLimits());
		}
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onDecision(prepared.invocation(), decision, nanos);
		}
		if (!decision.isAllowed() && decision.limit() != null) {
			this.rejections.rejected(prepared.operation().ranking(decision.limit()), prepared.key());
		}
	}

	/** Tell the listeners and the log of the decision of the shadowed limits. */
	private void watched(AnnotatedOperation operation, Decision shadow) {
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onShadowDecision(operation, shadow);
		}
		if (!shadow.isAllowed()) {
			this.shadowLog.rejected(operation, shadow);
		}
	}

	// Answer

	/**
	 * Return the exception that answers a rejected call, whichever the surface
	 * ({@link Refusals}).
	 * @param admission a call that was not admitted
	 * @return the exception
	 */
	RateLimitExceededException rejection(Admission admission) {
		return this.refusals.of(admission.prepared().operation(), admission.prepared().key(), admission.enforced());
	}

	// Settle

	/**
	 * Return what a call turned out to cost, from its charge on its result (or one
	 * element of its stream), or -1 for none.
	 */
	long cost(PreparedCall prepared, Object result) {
		return this.preparation.cost(prepared, result);
	}

	/**
	 * Record the difference between what an admitted call reserved and what it cost under
	 * its enforced and shadowed limits, and tell the listeners; a charge never fails the
	 * call.
	 * @param admission the admitted call
	 * @param cost what it cost in permits, or -1 for nothing to settle
	 * @return the decision of the enforced limits after the charge, or {@code null} when
	 * nothing was charged or the charge was lost
	 */
	Decision settle(Admission admission, long cost) {
		long more = more(admission, cost);
		if (more == 0) {
			return null;
		}
		Decision charged = null;
		try {
			if (admitted(admission.enforced())) {
				charged = this.rateLimiter.charge(admission.enforced(), more);
				charged(admission.prepared(), charged);
			}
			if (admitted(admission.shadow())) {
				this.rateLimiter.charge(admission.shadow(), more);
			}
		}
		catch (RuntimeException ex) {
			chargeLost(admission.prepared(), ex);
		}
		return charged;
	}

	/**
	 * Settle an admitted call without blocking, as {@link #settle} does; the future
	 * completes on the store's threads, never exceptionally.
	 * @param admission the admitted call
	 * @param cost what it cost in permits, or -1 for nothing to settle
	 * @return the decision of the enforced limits after the charge, or {@code null} when
	 * nothing was charged or the charge was lost
	 */
	CompletableFuture<Decision> settleAsync(Admission admission, long cost) {
		long more = more(admission, cost);
		if (more == 0) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Decision> enforced = !admitted(admission.enforced()) ? CompletableFuture.completedFuture(null)
				: chargeAsync(admission.enforced(), more).thenApply((charged) -> {
					charged(admission.prepared(), charged);
					return charged;
				});
		return enforced
			.thenCompose((charged) -> !admitted(admission.shadow()) ? CompletableFuture.completedFuture(charged)
					: chargeAsync(admission.shadow(), more).thenApply((shadow) -> charged))
			.handle((charged, failure) -> {
				if (failure != null) {
					chargeLost(admission.prepared(), failure);
					return null;
				}
				return charged;
			});
	}

	private CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		try {
			return this.rateLimiter.chargeAsync(decision, permits);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static long more(Admission admission, long cost) {
		return (cost < 0 || admission.prepared() == null) ? 0 : cost - admission.prepared().permits();
	}

	private static boolean admitted(Decision decision) {
		return decision != null && decision.isAllowed();
	}

	/** Whether a store admitted the call (a gate's admission has nothing stored). */
	private static boolean stored(Decision decision) {
		return admitted(decision) && decision.limit().algorithm().isStored();
	}

	/** Tell the listeners of the decision after a charge. */
	private void charged(PreparedCall prepared, Decision charged) {
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onCharge(prepared.invocation(), charged);
		}
	}

	private void chargeLost(PreparedCall prepared, Throwable ex) {
		logger.warn("The charge of a call to {} was not recorded; the call keeps the permits it reserved",
				prepared.operation().getDescription(), ex);
	}

	/**
	 * Give back what an admitted call took under its enforced and shadowed limits, as a
	 * refund does; blocking, so a non-blocking surface calls it off its event loops.
	 * @param admission the call
	 */
	void release(Admission admission) {
		if (stored(admission.enforced())) {
			this.rateLimiter.release(admission.enforced());
		}
		if (admitted(admission.shadow())) {
			this.rateLimiter.release(admission.shadow());
		}
	}

	/**
	 * End an admitted call, however it ended: give back the slots it holds under
	 * in-flight limits, once (after a refund, nothing is left to give); blocking, so a
	 * non-blocking surface calls it off its event loops. An end the store cannot hear
	 * never fails the call: the slots then free themselves when their leases end.
	 * @param admission the call
	 */
	void finish(Admission admission) {
		if (!admission.holdsStoredSlots()) {
			return;
		}
		this.inFlight.ended(admission.enforced(), admission.prepared().operation().getEnforcedLimits());
		try {
			if (admitted(admission.enforced())) {
				this.rateLimiter.finish(admission.enforced());
			}
			if (admitted(admission.shadow())) {
				this.rateLimiter.finish(admission.shadow());
			}
		}
		catch (RuntimeException ex) {
			logger.warn("The end of a call to {} was not recorded; its slots in flight free themselves when their "
					+ "leases end", admission.prepared().operation().getDescription(), ex);
		}
	}

	/**
	 * How a surface waits for a turn without blocking.
	 */
	@FunctionalInterface
	public interface Delay {

		/**
		 * Return a stage that completes after a duration.
		 * @param duration how long
		 * @return the stage
		 */
		CompletionStage<?> after(Duration duration);

	}

	/**
	 * What a call was decided: the prepared call and the decisions of its enforced and
	 * shadowed limits ({@code null} where it has none, and for the shadowed limits of a
	 * rejected call).
	 * @param prepared the call, {@code null} for a call that is not limited
	 * @param enforced the decision of its enforced limits
	 * @param shadow the decision of its shadowed limits
	 * @param cached whether the rejection came from the rejection cache or a gate,
	 * without the store
	 * @param permit the call's slot in its adaptive limit, {@code null} without one
	 */
	private static final WatchedDecision NOTHING_ENFORCED = new WatchedDecision(null, null);

	record Admission(PreparedCall prepared, Decision enforced, Decision shadow, boolean cached,
			AdaptiveLimit.Permit permit) {

		/** A call that its condition leaves unlimited. */
		static final Admission NOT_LIMITED = new Admission(null, null, null, false);

		Admission(PreparedCall prepared, Decision enforced, Decision shadow, boolean cached) {
			this(prepared, enforced, shadow, cached, null);
		}

		/** Return whether the call may go on. */
		boolean admitted() {
			return this.enforced == null || this.enforced.isAllowed();
		}

		/** Return whether the call settles a charge once it is done. */
		boolean charged() {
			return this.prepared != null && this.prepared.operation().getCharge() != null;
		}

		/** Return whether the call holds slots in flight, given back when it ends. */
		boolean holdsSlots() {
			return this.prepared != null && admitted() && this.prepared.operation().holdsSlots();
		}

		/** Return whether the call holds slots in the store, whose end talks to it. */
		boolean holdsStoredSlots() {
			return this.prepared != null && admitted() && this.prepared.operation().storeHoldsSlots();
		}

	}

}
