package dev.limiter.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * One script call in flight on Lettuce: the future its caller holds, the command sent for
 * it (the {@code EVALSHA}, then the {@code EVAL} after {@code NOSCRIPT}), and when
 * Redis's time to answer that command is up.
 * <p>
 * Redis has the timeout once per call, counted from the write of the command when the
 * command notes it ({@link SentScript}), else from its dispatch; the command sent again
 * after {@code NOSCRIPT} gets what the first one left of it. The call itself ends at the
 * latest at its deadline, the timeout plus the read grace after it started; a call that
 * waited for a connection starts again when it is connected, so that, as on the blocking
 * path, the wait for a connection and the wait for Redis have a bound each.
 */
final class ScriptCall extends CompletableFuture<List<Long>> {

	private final long timeoutNanos;

	private final long graceNanos;

	private volatile long deadlineNanos;

	private volatile InFlight inFlight;

	ScriptCall(long startedNanos, long timeoutNanos, long graceNanos) {
		this.timeoutNanos = timeoutNanos;
		this.graceNanos = graceNanos;
		this.deadlineNanos = startedNanos + timeoutNanos + graceNanos;
	}

	/**
	 * Start the call again once the connection it waited for is there.
	 * @param nowNanos the time now
	 */
	void connected(long nowNanos) {
		this.deadlineNanos = nowNanos + this.timeoutNanos + this.graceNanos;
	}

	long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Return Redis's time to answer this call.
	 * @return the time in nanoseconds
	 */
	long timeoutNanos() {
		return this.timeoutNanos;
	}

	/**
	 * Return when the command in flight was written (or dispatched, while not yet
	 * written); the deadline's start when none was sent.
	 * @return the time, on {@link System#nanoTime()}'s scale
	 */
	long writtenNanos() {
		InFlight inFlight = this.inFlight;
		return (inFlight != null) ? inFlight.sentNanos() : this.deadlineNanos - this.timeoutNanos - this.graceNanos;
	}

	/**
	 * Note the first command sent for this call.
	 * @param command the command, dispatched at {@code nowNanos}
	 * @param nowNanos the time of the dispatch
	 */
	void sent(Future<?> command, long nowNanos) {
		this.inFlight = new InFlight(command, this.timeoutNanos, nowNanos);
	}

	/**
	 * Note the command sent again after {@code NOSCRIPT}: Redis's time for it is what the
	 * first command left.
	 * @param command the command, dispatched at {@code nowNanos}
	 * @param nowNanos the time of the dispatch, when the first command's reply was in
	 */
	void sentAgain(Future<?> command, long nowNanos) {
		InFlight first = this.inFlight;
		long left = (first != null) ? first.budgetNanos - (nowNanos - first.sentNanos()) : this.timeoutNanos;
		this.inFlight = new InFlight(command, Math.max(0, left), nowNanos);
	}

	/**
	 * Return when Redis's time to answer the command in flight is up; a command that no
	 * event loop has written yet has its whole time still ahead.
	 * @param nowNanos the time now
	 * @return the time, on {@link System#nanoTime()}'s scale
	 */
	long redisDueNanos(long nowNanos) {
		InFlight inFlight = this.inFlight;
		if (inFlight == null) {
			// Still connecting, on the non-blocking path: the wait for the connection
			// has the deadline for its bound (a cold JVM's first connection takes
			// longer than a short timeout).
			return this.deadlineNanos;
		}
		if (inFlight.command instanceof SentScript script && !script.isSent()) {
			return nowNanos + inFlight.budgetNanos;
		}
		return inFlight.sentNanos() + inFlight.budgetNanos;
	}

	/**
	 * Return whether Redis has had its time to answer the command in flight, or the call
	 * its deadline: until then, a call without an answer is not judged (the command was
	 * written late by this JVM, or not yet).
	 * @param nowNanos the time now
	 * @return whether the call may be judged
	 */
	boolean redisHadItsTime(long nowNanos) {
		return redisDueNanos(nowNanos) <= nowNanos || nowNanos >= this.deadlineNanos;
	}

	/**
	 * End the call with a timeout, and cancel its command so that a command not written
	 * yet is never written; one already written is left to its answer, which tells how
	 * long a busy Redis takes.
	 * @param timeout the exception
	 */
	void timeOut(RuntimeException timeout) {
		if (completeExceptionally(timeout)) {
			InFlight inFlight = this.inFlight;
			if (inFlight != null && !(inFlight.command instanceof SentScript script && script.isSent())) {
				inFlight.command.cancel(true);
			}
		}
	}

	private record InFlight(Future<?> command, long budgetNanos, long dispatchedNanos) {

		long sentNanos() {
			return (this.command instanceof SentScript script && script.isSent()) ? script.sentNanos()
					: this.dispatchedNanos;
		}

	}

}
