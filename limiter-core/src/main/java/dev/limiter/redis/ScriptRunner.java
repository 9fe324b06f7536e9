package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the rate-limit script with {@code EVALSHA}, falling back to {@code EVAL} when
 * Redis answers {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}).
 */
abstract class ScriptRunner implements AutoCloseable {

	protected final String sha1;

	protected final byte[] source;

	ScriptRunner(RedisScript<?> script) {
		this.sha1 = script.getSha1();
		this.source = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Run the script.
	 * @param keys the keys
	 * @param args the arguments
	 * @return the script's integers
	 */
	abstract List<Long> run(byte[][] keys, byte[][] args);

	@Override
	public void close() {
	}

	/**
	 * Runs the script on Lettuce's asynchronous commands, waiting at most the timeout: on
	 * a connection of its own from the Lettuce client of a
	 * {@link LettuceConnectionFactory} (the client's options, such as reconnect
	 * behaviour, TLS and cluster topology, apply), or on a connection the caller shares.
	 * No Spring Data connection is created per call, which is most of what a call
	 * allocates otherwise.
	 * <p>
	 * On its own connection, a call that has no answer after the timeout first lets the
	 * client's event loops read what has arrived ({@link EventLoopCatchUp}, at most
	 * {@link LimiterConnectionFactories#READ_GRACE}): an answer Redis gave in time is
	 * used; only a missing one is a timeout.
	 */
	static final class Lettuce extends ScriptRunner {

		private final LettuceConnectionFactory factory;

		private final long timeoutNanos;

		private final long graceNanos = LimiterConnectionFactories.READ_GRACE.toNanos();

		private volatile EventLoopCatchUp catchUp;

		private volatile StatefulConnection<byte[], byte[]> connection;

		private volatile RedisScriptingAsyncCommands<byte[], byte[]> commands;

		Lettuce(RedisScript<?> script, LettuceConnectionFactory factory) {
			super(script);
			this.factory = factory;
			this.timeoutNanos = ((factory instanceof LimiterConnectionFactories.DedicatedConnectionFactory dedicated)
					? dedicated.replyTimeout() : factory.getClientConfiguration().getCommandTimeout())
				.toNanos();
		}

		Lettuce(RedisScript<?> script, RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
			super(script);
			this.factory = null;
			this.commands = commands;
			this.timeoutNanos = timeout.toNanos();
		}

		@Override
		List<Long> run(byte[][] keys, byte[][] args) {
			RedisScriptingAsyncCommands<byte[], byte[]> commands = commands();
			try {
				return await(commands.evalsha(this.sha1, ScriptOutputType.MULTI, keys, args));
			}
			catch (RedisNoScriptException ex) {
				return await(commands.eval(this.source, ScriptOutputType.MULTI, keys, args));
			}
		}

		private RedisScriptingAsyncCommands<byte[], byte[]> commands() {
			RedisScriptingAsyncCommands<byte[], byte[]> commands = this.commands;
			if (commands == null) {
				synchronized (this) {
					commands = this.commands;
					if (commands == null) {
						// Connected on first use, and again on a later call when Redis
						// was
						// down: once connected, Lettuce reconnects by itself.
						commands = connect();
					}
				}
			}
			return commands;
		}

		private RedisScriptingAsyncCommands<byte[], byte[]> connect() {
			AbstractRedisClient client = this.factory.getRequiredNativeClient();
			if (this.catchUp == null && this.factory instanceof LimiterConnectionFactories.DedicatedConnectionFactory) {
				this.catchUp = EventLoopCatchUp.of(client.getResources());
			}
			if (client instanceof RedisClusterClient cluster) {
				StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.connect(ByteArrayCodec.INSTANCE);
				this.connection = connection;
				this.commands = connection.async();
			}
			else {
				StatefulRedisConnection<byte[], byte[]> connection = ((RedisClient) client)
					.connect(ByteArrayCodec.INSTANCE);
				this.connection = connection;
				this.commands = connection.async();
			}
			return this.commands;
		}

		private List<Long> await(RedisFuture<List<Long>> future) {
			long deadline = System.nanoTime() + this.timeoutNanos + this.graceNanos;
			long wait = this.timeoutNanos;
			while (true) {
				long waitStarted = System.nanoTime();
				try {
					return future.get(wait, TimeUnit.NANOSECONDS);
				}
				catch (ExecutionException ex) {
					if (ex.getCause() instanceof RuntimeException runtime) {
						throw runtime;
					}
					throw new RedisException(ex.getCause());
				}
				catch (TimeoutException ex) {
					wait = nextWait(future, waitStarted, wait, deadline);
					if (wait <= 0) {
						future.cancel(true);
						throw new RedisCommandTimeoutException("Rate-limit script timed out after "
								+ Duration.ofNanos(this.timeoutNanos).toMillis() + " ms");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new RedisException("Interrupted while waiting for the rate-limit script", ex);
				}
			}
		}

		/**
		 * Judge a call that has no answer after a wait: Redis is silent only if this JVM
		 * kept up meanwhile, so that an answer would have been read; otherwise Redis gets
		 * its timeout again, counted from now, within the grace.
		 * @return how much longer to wait, 0 when the call times out
		 */
		private long nextWait(RedisFuture<?> future, long waitStarted, long wait, long deadline) {
			EventLoopCatchUp catchUp = this.catchUp;
			if (catchUp == null) {
				return 0;
			}
			long checked = System.nanoTime();
			boolean callerWasLate = checked - waitStarted - wait >= this.timeoutNanos / 2;
			if (!catchUp.await(deadline - checked)) {
				return 0;
			}
			long now = System.nanoTime();
			if (future.isDone()) {
				// Redis answered in time; this JVM was slow to read it.
				return 1;
			}
			boolean loopsWereLate = now - checked >= this.timeoutNanos / 2;
			if (!callerWasLate && !loopsWereLate) {
				return 0;
			}
			// The command may itself have been written late by a busy loop.
			return Math.min(this.timeoutNanos, deadline - now);
		}

		@Override
		public void close() {
			StatefulConnection<byte[], byte[]> connection = this.connection;
			if (connection != null) {
				connection.close();
			}
			EventLoopCatchUp catchUp = this.catchUp;
			if (catchUp != null) {
				catchUp.close();
			}
		}

	}

	/**
	 * Runs the script through Spring Data Redis on any connection factory (Jedis too).
	 */
	static final class Template extends ScriptRunner {

		private final RedisOperations<?, ?> redis;

		Template(RedisScript<?> script, RedisOperations<?, ?> redis) {
			super(script);
			this.redis = redis;
		}

		@Override
		@SuppressWarnings("unchecked")
		List<Long> run(byte[][] keys, byte[][] args) {
			byte[][] keysAndArgs = new byte[keys.length + args.length][];
			System.arraycopy(keys, 0, keysAndArgs, 0, keys.length);
			System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
			return this.redis.execute((RedisCallback<List<Long>>) (connection) -> {
				try {
					return (List<Long>) connection.scriptingCommands()
						.evalSha(this.sha1, ReturnType.MULTI, keys.length, keysAndArgs);
				}
				catch (RuntimeException ex) {
					if (!isNoScript(ex)) {
						throw ex;
					}
					return (List<Long>) connection.scriptingCommands()
						.eval(this.source, ReturnType.MULTI, keys.length, keysAndArgs);
				}
			});
		}

		private static boolean isNoScript(Throwable ex) {
			for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
				if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
					return true;
				}
			}
			return false;
		}

	}

}
