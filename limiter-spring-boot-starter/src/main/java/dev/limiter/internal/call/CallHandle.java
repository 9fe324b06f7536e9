package dev.limiter.internal.call;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.call.CallPipeline.Admission;
import dev.limiter.internal.call.CallPreparation.PreparedCall;

/**
 * One limited call from its preparation to its end, whichever surface serves it: the
 * surface reads its request into a handle ({@link CallPipeline#handle}), decides it
 * (blocking, or without blocking with its own delay), answers a refusal with
 * {@link #rejection()} in its protocol, settles what the call turned out to cost, and
 * ends it once, however it ended. Everything that follows the decision is here, so that
 * no surface re-implements it: the cost no limit can ever hold, refused before the store;
 * the refund of a {@code refundOn} failure before the slots in flight are given back; the
 * end off the caller's thread where the caller may not block; the mark that keeps a
 * method a surface decided from being decided again by the advisor.
 * <p>
 * A handle is used by one call; its decision and end may complete on other threads.
 */
public final class CallHandle {

	/** The operation a surface decided and is about to run on this thread. */
	private static final ThreadLocal<AnnotatedOperation> decidedHere = new ThreadLocal<>();

	private final CallPipeline pipeline;

	private volatile PreparedCall prepared;

	private volatile Admission admission;

	private volatile RateLimitExceededException tooCostly;

	private final AtomicBoolean ended = new AtomicBoolean();

	// What the surface computed, before the store's bound on a reservation.
	private long cost = -1;

	// How the surface words a cost no limit holds: its unit and its fix.
	private String unit = "permits";

	private String fix = "make the call cost less, or raise the limit's threshold";

	CallHandle(CallPipeline pipeline, PreparedCall prepared) {
		this.pipeline = pipeline;
		this.prepared = prepared;
	}

	/**
	 * Return the key the call counts under.
	 * @return the key
	 */
	public String key() {
		return this.prepared.key();
	}

	/**
	 * Return the operation whose numbers apply: its own, its plan's, or an override's.
	 * @return the operation
	 */
	public RateLimitOperation operation() {
		return this.prepared.operation();
	}

	/**
	 * Reserve a cost the surface computed instead of the operation's permits, such as the
	 * points of a GraphQL document or the tokens of a chat call; before the decision.
	 * @param permits what the call reserves, at least one
	 * @return this handle
	 */
	public CallHandle costing(long permits) {
		this.cost = permits;
		this.prepared = this.prepared.withPermits(permits);
		return this;
	}

	/**
	 * Reserve a cost the surface computed, as {@link #costing(long)} does, and say how a
	 * cost larger than the limit holds in all is told: in the surface's unit, with its
	 * fix.
	 * @param permits what the call reserves, at least one
	 * @param unit what the cost is counted in, such as {@code tokens}
	 * @param fix what the caller changes, such as {@code lower the call's maximum tokens}
	 * @return this handle
	 */
	public CallHandle costing(long permits, String unit, String fix) {
		this.unit = unit;
		this.fix = fix;
		return costing(permits);
	}

	/**
	 * Return what the call reserves.
	 * @return the permits
	 */
	public long permits() {
		return this.prepared.permits();
	}

	/**
	 * Decide the call on the calling thread, waiting under {@code maxWait}. A cost larger
	 * than a limit holds in all is refused here, before the store.
	 * @return whether the call may go on
	 * @throws InterruptedException if the thread is interrupted while it waits
	 */
	public boolean decide() throws InterruptedException {
		if (refusedForCost()) {
			return false;
		}
		this.admission = this.pipeline.decide(this.prepared);
		return this.admission.admitted();
	}

	/**
	 * Decide the call without blocking, waiting under {@code maxWait} with the surface's
	 * own delay; the future completes on the store's threads, or at once when the limiter
	 * knows the answer without the store ({@link #answeredAtOnce()}).
	 * @param delay how the surface waits without blocking, such as {@code Mono.delay}
	 * @return whether the call may go on
	 */
	public CompletableFuture<Boolean> decideAsync(CallPipeline.Delay delay) {
		if (refusedForCost()) {
			return CompletableFuture.completedFuture(false);
		}
		return this.pipeline.decideAsync(this.prepared, delay).thenApply((decided) -> {
			this.admission = decided;
			return decided.admitted();
		});
	}

	/**
	 * Return whether the refusal was known without asking the store (a remembered
	 * rejection, a cost no limit holds), so that a surface may answer it on its own
	 * thread.
	 * @return whether the store was not asked
	 */
	public boolean answeredAtOnce() {
		Admission decided = this.admission;
		return this.tooCostly != null || (decided != null && decided.cached());
	}

	/**
	 * Refuse a call whose cost no limit of it can ever hold. Only a cost the surface
	 * computed can: an operation's own permits are checked against its limits at startup,
	 * and the endpoint refuses an override below them.
	 */
	private boolean refusedForCost() {
		if (this.cost < 0) {
			return false;
		}
		PreparedCall call = this.prepared;
		Limit smallest = null;
		for (Limit limit : call.operation().getEnforcedLimits()) {
			if (smallest == null || limit.threshold() < smallest.threshold()) {
				smallest = limit;
			}
		}
		if (smallest == null || call.permits() <= smallest.threshold()) {
			return false;
		}
		long asked = Math.max(this.cost, call.permits());
		this.tooCostly = new CostExceedsLimitException(
				CostExceedsLimitException.message(asked, this.unit, smallest, this.fix), call.key(), asked, smallest);
		return true;
	}

	/**
	 * Return the decision of the enforced limits.
	 * @return the decision, or {@code null} before the decision, for a call refused for
	 * its cost, and when only shadow limits decided
	 */
	public Decision decision() {
		Admission decided = this.admission;
		return (decided != null) ? decided.enforced() : null;
	}

	/**
	 * Return the exception that answers the refused call, as on every surface:
	 * {@link CostExceedsLimitException} for a cost no limit holds,
	 * {@code RateLimitUnavailableException} for a fail-closed or capacity refusal,
	 * {@link RateLimitExceededException} otherwise.
	 * @return the exception
	 */
	public RateLimitExceededException rejection() {
		RateLimitExceededException costly = this.tooCostly;
		return (costly != null) ? costly : this.pipeline.rejection(this.admission);
	}

	/**
	 * Settle what the admitted call turned out to cost on the calling thread (whose web
	 * request then gets the headers of the charge): the difference from what it reserved
	 * taken or given back; never fails.
	 * @param cost what it cost, in permits
	 * @return the decision after the charge, or {@code null} when nothing was charged
	 */
	public Decision settle(long cost) {
		Admission decided = this.admission;
		return (decided != null && decided.admitted()) ? this.pipeline.settle(decided, cost) : null;
	}

	/**
	 * Settle what the admitted call turned out to cost without blocking, as
	 * {@link #settle} does; the future completes on the store's threads, never
	 * exceptionally.
	 * @param cost what it cost, in permits
	 * @return the decision after the charge, or {@code null} when nothing was charged
	 */
	public CompletableFuture<Decision> settleAsync(long cost) {
		Admission decided = this.admission;
		return (decided != null && decided.admitted()) ? this.pipeline.settleAsync(decided, cost)
				: CompletableFuture.completedFuture(null);
	}

	/**
	 * Return whether the admitted call holds slots in flight, which its end gives back.
	 * @return whether it holds slots
	 */
	public boolean holdsSlots() {
		Admission decided = this.admission;
		return decided != null && decided.holdsSlots();
	}

	/**
	 * Return whether the call settles a {@code charge} once it is done.
	 * @return whether it is charged
	 */
	boolean charged() {
		Admission decided = this.admission;
		return decided != null && decided.charged();
	}

	/**
	 * Return what the call turned out to cost from its {@code charge} on its result (or
	 * one element of its stream), or -1 for none.
	 */
	long cost(Object result) {
		return this.pipeline.cost(this.prepared, result);
	}

	/**
	 * Return whether the end of the call talks to the store: it holds slots in flight
	 * there, or its failure is one its operation refunds.
	 * @param failure what it failed with, or {@code null}
	 * @return whether {@link #end} is blocking
	 */
	public boolean endTalksToStore(Throwable failure) {
		Admission decided = this.admission;
		if (decided == null || !decided.admitted() || decided.prepared() == null) {
			return false;
		}
		return decided.holdsStoredSlots() || (failure != null && decided.prepared().operation().refundsOn(failure));
	}

	/**
	 * End the admitted call, however it ended, once (a second end does nothing): its time
	 * and outcome taught to its adaptive limit, its permits given back when it failed
	 * with one of its {@code refundOn} exceptions, then its slots in flight given back.
	 * Blocking when it talks to the store ({@link #endTalksToStore}); a surface that may
	 * not block uses {@link #endAsync}.
	 * @param failure what it failed with, or {@code null}
	 */
	public void end(Throwable failure) {
		end(failure, 0);
	}

	/**
	 * End the admitted call as {@link #end(Throwable)} does, with the status its response
	 * carries, which tells an adaptive limit whether the call failed as an overloaded
	 * service fails ({@link Drops}).
	 * @param failure what it failed with, or {@code null}
	 * @param status the HTTP status of its response, 0 when unknown
	 */
	public void end(Throwable failure, int status) {
		Admission decided = endingNow();
		if (decided == null) {
			return;
		}
		if (decided.permit() != null) {
			decided.permit().end(Drops.dropped(failure, status));
		}
		if (failure != null && decided.prepared().operation().refundsOn(failure)) {
			this.pipeline.release(decided);
		}
		this.pipeline.finish(decided);
	}

	/**
	 * Return the admitted call to end, once: {@code null} for a call not admitted, or
	 * already ended.
	 */
	private Admission endingNow() {
		Admission decided = this.admission;
		if (decided == null || !decided.admitted() || decided.prepared() == null
				|| !this.ended.compareAndSet(false, true)) {
			return null;
		}
		return decided;
	}

	/**
	 * End the admitted call with its permits given back, once, whatever its
	 * {@code refundOn}: another limit of the same request refused it, and a call refused
	 * by any of its limits counts in none. Blocking, as {@link #end} is when it talks to
	 * the store; a surface that may not block uses {@link #giveBackAsync}.
	 */
	public void giveBack() {
		Admission decided = endingNow();
		if (decided == null) {
			return;
		}
		if (decided.permit() != null) {
			decided.permit().giveBack();
		}
		try {
			this.pipeline.release(decided);
		}
		catch (RuntimeException ex) {
			// a store that cannot hear it keeps the grant counted: stricter, never looser
		}
		this.pipeline.finish(decided);
	}

	/**
	 * Give the admitted call's permits back as {@link #giveBack} does, on the pipeline's
	 * executor for ends.
	 * @return completes once they are given back, never exceptionally
	 */
	public CompletableFuture<Void> giveBackAsync() {
		Admission decided = this.admission;
		if (decided == null || !decided.admitted() || this.ended.get()) {
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.runAsync(this::giveBack, this.pipeline.endExecutor()).exceptionally((ex) -> null);
	}

	/**
	 * End the admitted call as {@link #end} does, off the calling thread when the end
	 * talks to the store (on the pipeline's executor for ends), at once otherwise.
	 * @param failure what it failed with, or {@code null}
	 * @return completes once the call is ended, never exceptionally
	 */
	public CompletableFuture<Void> endAsync(Throwable failure) {
		return endAsync(failure, 0);
	}

	/**
	 * End the admitted call as {@link #end(Throwable, int)} does, off the calling thread
	 * when the end talks to the store.
	 * @param failure what it failed with, or {@code null}
	 * @param status the HTTP status of its response, 0 when unknown
	 * @return completes once the call is ended, never exceptionally
	 */
	public CompletableFuture<Void> endAsync(Throwable failure, int status) {
		if (!endTalksToStore(failure)) {
			end(failure, status);
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.runAsync(() -> end(failure, status), this.pipeline.endExecutor())
			.exceptionally((ex) -> null);
	}

	/**
	 * Run what the surface does to start the decided method (grpc-java's handler calling
	 * the service), with the method marked as decided on this thread: the advisor, which
	 * a proxy in between would run, lets its first call through without deciding it
	 * again.
	 * @param <T> what the action returns
	 * @param action what runs the method
	 * @return what the action returned
	 */
	public <T> T runDecided(Supplier<T> action) {
		Admission decided = this.admission;
		AnnotatedOperation operation = (decided != null && decided.prepared() != null) ? decided.prepared().operation()
				: null;
		if (operation == null || operation.getMethod() == null) {
			return action.get();
		}
		AnnotatedOperation outer = decidedHere.get();
		decidedHere.set(operation);
		try {
			return action.get();
		}
		finally {
			if (outer != null) {
				decidedHere.set(outer);
			}
			else {
				decidedHere.remove();
			}
		}
	}

	/**
	 * Return whether a surface decided this operation on this thread and has not yet run
	 * it, and take the mark: the call that follows is the one it decided.
	 */
	static boolean claimDecided(AnnotatedOperation operation) {
		AnnotatedOperation marked = decidedHere.get();
		if (marked == null || operation.getMethod() == null || !operation.getMethod().equals(marked.getMethod())) {
			return false;
		}
		decidedHere.remove();
		return true;
	}

}
