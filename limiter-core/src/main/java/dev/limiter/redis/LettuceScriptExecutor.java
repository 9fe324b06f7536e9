package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.internal.redis.LimiterConnectionFactories;

/**
 * Runs scripts on Lettuce's asynchronous commands. No Spring Data connection is created
 * per call, which is most of what a call allocates otherwise.
 * <p>
 * On its own connection, Redis's timeout runs from the moment an event loop wrote the
 * command to the socket ({@link SentScript}): time the command spent in this JVM before
 * is not Redis's. A call that has no answer after the timeout first lets the client's
 * event loops read what has arrived ({@link EventLoopCatchUp}, within
 * {@link LimiterConnectionFactories#READ_GRACE}): an answer Redis gave in time is the
 * answer, and while this JVM was the one behind, Redis gets its timeout again; only a
 * Redis that stays silent while the JVM keeps up is a timeout.
 */
final class LettuceScriptExecutor extends RedisScriptExecutor {

	private static final Logger logger = LoggerFactory.getLogger(LettuceScriptExecutor.class);

	/**
	 * Judges every call that has no answer when it is due; one daemon thread for every
	 * executor.
	 */
	private static final Timer timer = timer();

	private final LettuceConnectionFactory factory;

	private final long timeoutNanos;

	private final long graceNanos = LimiterConnectionFactories.READ_GRACE.toNanos();

	private final ReplyTimes replies;

	/**
	 * How long the connection may stay disconnected before it is replaced by a new one:
	 * Lettuce's own reconnect attempts come at least every
	 * {@link LimiterConnectionFactories#MAX_RECONNECT_DELAY} on the limiter's connection,
	 * each bounded by the timeout and the grace, so a connection still down after one
	 * delay and one attempt has stopped trying; Lettuce 6.6 was seen to stop after a
	 * restart of Redis (commands rejected as not connected for as long as a test watched,
	 * with Redis answering).
	 */
	private final long stuckNanos;

	/** When the connection was first seen disconnected, 0 while it is connected. */
	private volatile long disconnectedSince;

	private volatile EventLoopCatchUp catchUp;

	private volatile SentinelWatch sentinelWatch;

	private volatile StatefulConnection<byte[], byte[]> connection;

	private volatile RedisScriptingAsyncCommands<byte[], byte[]> commands;

	private final Object connectLock = new Object();

	private CompletableFuture<RedisScriptingAsyncCommands<byte[], byte[]>> connecting;

	private boolean closed;

	LettuceScriptExecutor(LettuceConnectionFactory factory) {
		this.factory = factory;
		this.timeoutNanos = ((factory instanceof LimiterConnectionFactories.DedicatedConnectionFactory dedicated)
				? dedicated.replyTimeout() : factory.getClientConfiguration().getCommandTimeout())
			.toNanos();
		this.stuckNanos = LimiterConnectionFactories.MAX_RECONNECT_DELAY.toNanos() + this.timeoutNanos
				+ this.graceNanos;
		this.replies = new ReplyTimes(this.timeoutNanos, this.timeoutNanos + this.graceNanos);
	}

	LettuceScriptExecutor(RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
		this.factory = null;
		this.commands = commands;
		this.timeoutNanos = timeout.toNanos();
		this.stuckNanos = Long.MAX_VALUE;
		this.replies = new ReplyTimes(this.timeoutNanos, this.timeoutNanos + this.graceNanos);
	}

	@Override
	boolean mayBeCluster() {
		return (this.factory != null) ? this.factory.isClusterAware()
				: this.commands instanceof RedisAdvancedClusterAsyncCommands;
	}

	/**
	 * Run a script and wait for its answer: the non-blocking call, judged by the same
	 * timer, with its deadline as the bound of the wait. The caller ends the call itself
	 * only if the timer has not by then (a starved timer thread): the deadline holds
	 * either way.
	 */
	@Override
	public List<Long> execute(RedisScript<?> script, byte[][] keys, byte[][] args) {
		if (this.commands == null) {
			// A blocking caller waits for the connection as before, bounded by its own
			// timeouts; Redis's time starts once it is there.
			awaitConnected();
		}
		ScriptCall call = start(script, keys, args);
		while (true) {
			try {
				return call.get(Math.max(0, call.deadlineNanos() - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException ex) {
				throw unwrap(ex.getCause());
			}
			catch (TimeoutException ex) {
				// Ends the call unless its answer came meanwhile; the next get says
				// which.
				call.timeOut(timedOut(call));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisException("Interrupted while waiting for the rate-limit script", ex);
			}
		}
	}

	@Override
	public CompletableFuture<List<Long>> executeAsync(RedisScript<?> script, byte[][] keys, byte[][] args) {
		return start(script, keys, args);
	}

	private ScriptCall start(RedisScript<?> script, byte[][] keys, byte[][] args) {
		RedisScriptingAsyncCommands<byte[], byte[]> commands = unlessStuck(this.commands);
		ScriptCall call = call();
		if (commands != null) {
			send(call, commands, script, keys, args);
		}
		else {
			// Only a Redis that was absent when the starter connected gets here.
			connecting().whenComplete((connected, failure) -> {
				if (failure != null) {
					call.completeExceptionally(unwrap(failure));
				}
				else {
					call.connected(System.nanoTime());
					send(call, connected, script, keys, args);
					// Judged from the write now, not at the deadline that bounded
					// the connecting.
					watch(call, call.redisDueNanos(System.nanoTime()));
				}
			});
		}
		watch(call, call.redisDueNanos(System.nanoTime()));
		return call;
	}

	/**
	 * Return the connection's commands, or {@code null} when the connection has stayed
	 * disconnected past {@link #stuckNanos}: it is then closed, and this call connects
	 * anew, as a call does before the first connection.
	 */
	private RedisScriptingAsyncCommands<byte[], byte[]> unlessStuck(
			RedisScriptingAsyncCommands<byte[], byte[]> commands) {
		StatefulConnection<byte[], byte[]> connection = this.connection;
		// A cluster connection stays open while a node is down: its nodes' connections
		// reconnect on their own, and topology refreshes follow failovers.
		if (commands == null || connection == null || connection.isOpen()
				|| connection instanceof StatefulRedisClusterConnection) {
			if (this.disconnectedSince != 0) {
				this.disconnectedSince = 0;
			}
			return commands;
		}
		long now = System.nanoTime();
		long since = this.disconnectedSince;
		if (since == 0) {
			this.disconnectedSince = now;
			return commands;
		}
		if (now - since < this.stuckNanos) {
			return commands;
		}
		if (!replaced(connection)) {
			return this.commands;
		}
		logger.warn("Limiter's Redis connection has been disconnected for {} ms, longer than Lettuce takes to "
				+ "reconnect: it is replaced by a new connection (which asks a Sentinel for the current master)",
				TimeUnit.NANOSECONDS.toMillis(now - since));
		return null;
	}

	/**
	 * Drop a connection, so that the next call connects anew; its calls in flight end
	 * with a failure, decided by their policy.
	 * @return whether it was still this executor's connection
	 */
	private boolean replaced(StatefulConnection<byte[], byte[]> connection) {
		synchronized (this.connectLock) {
			if (connection == null || this.connection != connection) {
				return false;
			}
			this.connection = null;
			this.commands = null;
			this.connecting = null;
			this.disconnectedSince = 0;
		}
		connection.closeAsync();
		return true;
	}

	// The Sentinels name another master than the one this connection was made to.
	private void masterMoved(String from, String to) {
		if (replaced(this.connection)) {
			logger.warn("Limiter's Redis connection was made to {}, and the Sentinels now name {} the master: it is "
					+ "replaced by a connection to {}", from, to, to);
		}
	}

	// Redis's time for a call is learned from its recent answers (ReplyTimes).
	private ScriptCall call() {
		long now = System.nanoTime();
		return new ScriptCall(now, this.replies.patienceNanos(now), this.graceNanos);
	}

	/**
	 * Judge, without blocking, a call that may have no answer when it is due.
	 */
	private void watch(ScriptCall call, long dueNanos) {
		Timeout check = timer.newTimeout((timeout) -> judge(call, dueNanos),
				Math.min(dueNanos, call.deadlineNanos()) - System.nanoTime(), TimeUnit.NANOSECONDS);
		call.whenComplete((result, failure) -> check.cancel());
	}

	private void judge(ScriptCall call, long dueNanos) {
		if (call.isDone()) {
			return;
		}
		long checked = System.nanoTime();
		if (!call.redisHadItsTime(checked)) {
			watch(call, call.redisDueNanos(checked));
			return;
		}
		boolean timerWasLate = checked - Math.min(dueNanos, call.deadlineNanos()) >= call.timeoutNanos() / 2;
		EventLoopCatchUp catchUp = this.catchUp;
		if (catchUp == null) {
			call.timeOut(timedOut(call));
			return;
		}
		CompletableFuture<Void> caughtUp;
		try {
			caughtUp = catchUp.caughtUp();
		}
		catch (RuntimeException ex) {
			// The loops are shutting down: nothing will answer this call.
			call.completeExceptionally(ex);
			return;
		}
		Timeout giveUp = timer.newTimeout((timeout) -> {
			caughtUp.complete(null);
			call.timeOut(timedOut(call));
		}, call.deadlineNanos() - checked, TimeUnit.NANOSECONDS);
		caughtUp.thenRun(() -> {
			giveUp.cancel();
			long now = System.nanoTime();
			long wait = nextWait(call, timerWasLate, checked, now);
			if (wait <= 0) {
				call.timeOut(timedOut(call));
			}
			else if (!call.isDone()) {
				watch(call, now + wait);
			}
		});
	}

	/**
	 * Decide what a call with no answer does once the event loops have caught up: Redis
	 * is silent only if this JVM kept up meanwhile, so that an answer would have been
	 * read; otherwise Redis gets its timeout again, counted from now, within the grace.
	 * @return how much longer to wait, 0 when the call times out
	 */
	private long nextWait(ScriptCall call, boolean timerWasLate, long checked, long now) {
		if (call.isDone()) {
			// Redis answered in time; this JVM was slow to read it.
			return 1;
		}
		boolean loopsWereLate = now - checked >= call.timeoutNanos() / 2;
		if (!timerWasLate && !loopsWereLate) {
			return 0;
		}
		return Math.min(call.timeoutNanos(), call.deadlineNanos() - now);
	}

	/**
	 * Send the script for a call: {@code EVALSHA}, and {@code EVAL} after
	 * {@code NOSCRIPT}; on this executor's own connection, as commands that note when
	 * they were written.
	 */
	private void send(ScriptCall call, RedisScriptingAsyncCommands<byte[], byte[]> commands, RedisScript<?> script,
			byte[][] keys, byte[][] args) {
		if (call.isDone()) {
			// Timed out while connecting: the script must not run after its caller
			// was answered by the failure policy.
			return;
		}
		StatefulConnection<byte[], byte[]> connection = this.connection;
		CompletionStage<List<Long>> first = (connection != null)
				? dispatch(connection, SentScript.evalsha(script.getSha1(), keys, args))
				: commands.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args);
		long firstDispatched = System.nanoTime();
		call.sent(first.toCompletableFuture(), firstDispatched);
		first.whenComplete((result, failure) -> {
			answered(first, firstDispatched, failure);
			if (failure instanceof RedisNoScriptException && !call.isDone()) {
				try {
					CompletionStage<List<Long>> again = (connection != null)
							? dispatch(connection, SentScript.eval(source(script), keys, args))
							: commands.eval(source(script), ScriptOutputType.MULTI, keys, args);
					long againDispatched = System.nanoTime();
					call.sentAgain(again.toCompletableFuture(), againDispatched);
					again.whenComplete((retried, retryFailure) -> {
						answered(again, againDispatched, retryFailure);
						complete(call, retried, retryFailure);
					});
				}
				catch (RuntimeException ex) {
					// Rejected at once (disconnected meanwhile): this thread is an
					// event loop, so the call is told rather than the thread.
					call.completeExceptionally(ex);
				}
			}
			else {
				complete(call, result, failure);
			}
		});
	}

	/**
	 * Note how long Redis took to answer a command, an answer that came after its call
	 * timed out included: what a busy Redis takes is learned from its late answers too.
	 * An error reply is an answer; a command that got none (cancelled, disconnected,
	 * timed out by Lettuce) is not.
	 */
	private void answered(CompletionStage<?> command, long dispatchedNanos, Throwable failure) {
		if (failure != null && !(failure instanceof io.lettuce.core.RedisCommandExecutionException)) {
			return;
		}
		long now = System.nanoTime();
		long written = (command instanceof SentScript sent && sent.isSent()) ? sent.sentNanos() : dispatchedNanos;
		this.replies.answered(now - written, now);
	}

	private static SentScript dispatch(StatefulConnection<byte[], byte[]> connection, SentScript command) {
		connection.dispatch(command);
		return command;
	}

	private static void complete(CompletableFuture<List<Long>> reply, List<Long> result, Throwable failure) {
		if (failure != null) {
			reply.completeExceptionally(unwrap(failure));
		}
		else {
			reply.complete(result);
		}
	}

	private RedisCommandTimeoutException timedOut(ScriptCall call) {
		String message = "Rate-limit script timed out after " + Duration.ofNanos(call.timeoutNanos()).toMillis()
				+ " ms";
		// Answers to earlier commands came after this one was written: Redis is busy.
		return this.replies.answeredSince(call.writtenNanos()) ? new LateReplyException(message)
				: new RedisCommandTimeoutException(message);
	}

	/**
	 * A call that Redis did not answer in time while it answered earlier commands: the
	 * call takes its failure policy, and the breaker does not count it.
	 */
	static final class LateReplyException extends RedisCommandTimeoutException
			implements dev.limiter.internal.resilience.CircuitBreaker.StillAnswering {

		LateReplyException(String message) {
			super(message);
		}

	}

	private static RuntimeException unwrap(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		return (cause instanceof RuntimeException runtime) ? runtime : new RedisException(cause);
	}

	/**
	 * Wait for the attempt to connect that runs, or a new one. An attempt is bounded by
	 * the connection's own timeouts (the timeout plus the grace for the socket and the
	 * handshake); what it spends in this JVM besides (a cold first connection loads and
	 * starts much of Netty) is not bounded here, as it was not when each caller connected
	 * by itself.
	 */
	private RedisScriptingAsyncCommands<byte[], byte[]> awaitConnected() {
		try {
			return connecting().get();
		}
		catch (ExecutionException ex) {
			throw unwrap(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisException("Interrupted while connecting for the rate-limit script", ex);
		}
	}

	/**
	 * Return the connection's commands to come: connected on first use, and again on a
	 * later call while Redis was down (once connected, Lettuce reconnects by itself). One
	 * attempt at a time runs, on a thread of its own, and every caller waits for that one
	 * attempt: an attempt on a Redis that does not answer takes the timeout plus the
	 * grace, and callers that queued for attempts of their own would wait that long once
	 * for each caller ahead.
	 */
	private CompletableFuture<RedisScriptingAsyncCommands<byte[], byte[]>> connecting() {
		synchronized (this.connectLock) {
			RedisScriptingAsyncCommands<byte[], byte[]> commands = this.commands;
			if (commands != null) {
				return CompletableFuture.completedFuture(commands);
			}
			if (this.connecting == null || this.connecting.isCompletedExceptionally()) {
				CompletableFuture<RedisScriptingAsyncCommands<byte[], byte[]>> attempt = new CompletableFuture<>();
				Thread thread = new Thread(() -> {
					try {
						attempt.complete(connect());
					}
					catch (RuntimeException | Error ex) {
						attempt.completeExceptionally(ex);
					}
				}, "limiter-connect");
				thread.setDaemon(true);
				thread.start();
				this.connecting = attempt;
			}
			return this.connecting;
		}
	}

	private RedisScriptingAsyncCommands<byte[], byte[]> connect() {
		AbstractRedisClient client = this.factory.getRequiredNativeClient();
		synchronized (this.connectLock) {
			if (this.closed) {
				throw new RedisException("The rate-limit script executor is closed");
			}
			if (this.catchUp == null && this.factory instanceof LimiterConnectionFactories.DedicatedConnectionFactory) {
				this.catchUp = EventLoopCatchUp.of(client.getResources());
			}
			if (this.sentinelWatch == null && this.factory.isRedisSentinelAware()) {
				this.sentinelWatch = new SentinelWatch(this.factory, this::masterMoved);
			}
		}
		if (this.sentinelWatch != null) {
			this.sentinelWatch.connecting();
		}
		StatefulConnection<byte[], byte[]> connection = (client instanceof RedisClusterClient cluster)
				? cluster.connect(ByteArrayCodec.INSTANCE) : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
		synchronized (this.connectLock) {
			if (this.closed) {
				connection.close();
				throw new RedisException("The rate-limit script executor is closed");
			}
			this.connection = connection;
			this.commands = (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)
					? cluster.async() : ((StatefulRedisConnection<byte[], byte[]>) connection).async();
			return this.commands;
		}
	}

	@Override
	public void close() {
		synchronized (this.connectLock) {
			// An attempt still running closes what it opens.
			this.closed = true;
		}
		StatefulConnection<byte[], byte[]> connection = this.connection;
		if (connection != null) {
			connection.close();
		}
		EventLoopCatchUp catchUp = this.catchUp;
		if (catchUp != null) {
			catchUp.close();
		}
		SentinelWatch watch = this.sentinelWatch;
		if (watch != null) {
			watch.close();
		}
	}

	/**
	 * A hashed wheel with 1 ms ticks: scheduling and cancelling a check are lock-free (a
	 * scheduled executor's queue takes a lock that event loops, which schedule and cancel
	 * a check per call, would park on under load).
	 */
	private static Timer timer() {
		HashedWheelTimer timer = new HashedWheelTimer((task) -> {
			Thread thread = new Thread(task, "limiter-timer");
			thread.setDaemon(true);
			return thread;
		}, 1, TimeUnit.MILLISECONDS, 512);
		// Started here, not by the first call, which would wait for the thread.
		timer.start();
		return timer;
	}

}
