package dev.limiter.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.ForwardingRateLimiter;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.Engines;

/**
 * A {@link dev.limiter.RateLimiter} that keeps the state of every limit of a key in Redis
 * (a sorted set per sliding-window log, a hash of slices per bucketed window, one number
 * per token bucket) and decides each call with one atomic Lua script, whatever algorithms
 * its limits use.
 * <p>
 * Time is the Redis server's clock by default, so instances whose clocks disagree still
 * agree on the window; {@link Builder#clock(Clock)} switches to the application's clock
 * for managed Redis services that refuse {@code TIME} in scripts. Only admitted calls are
 * recorded unless {@link Builder#countRejected(boolean)} is set, so a client that keeps
 * calling gets back in as soon as its old calls leave the window.
 * <p>
 * With a Lettuce connection factory the script is sent on Lettuce's asynchronous
 * commands, with {@code EVALSHA}, falling back to {@code EVAL} when Redis answers
 * {@code NOSCRIPT} (after a restart, failover or {@code SCRIPT FLUSH}); other factories
 * run it through Spring Data Redis the same way.
 */
public final class RedisRateLimiter extends ForwardingRateLimiter implements AutoCloseable {

	/** The key prefix used when none is configured. */
	public static final String DEFAULT_KEY_PREFIX = "limiter:";

	static {
		Engines.register(RedisRateLimiter.class, (limiter) -> limiter.engine);
	}

	private final RedisEngine engine;

	private RedisRateLimiter(RedisEngine engine) {
		this.engine = engine;
	}

	/**
	 * Start building a limiter on a connection factory (see
	 * {@link RedisScriptExecutor#of(RedisConnectionFactory)}).
	 * @param connectionFactory the Redis connection factory
	 * @return the builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(RedisScriptExecutor.of(connectionFactory));
	}

	/**
	 * Start building a limiter on a Lettuce connection that the caller owns and may share
	 * with other work; {@link #close()} leaves it open.
	 * @param commands the asynchronous commands of a connection with a byte-array codec
	 * @param timeout the longest a call waits for the script
	 * @return the builder
	 */
	public static Builder builder(RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
		return new Builder(RedisScriptExecutor.of(commands, timeout));
	}

	/**
	 * Start building a limiter that runs its script through a Spring Data Redis template,
	 * on whatever connection factory the template has.
	 * @param redis the template
	 * @return the builder
	 */
	public static Builder builder(RedisOperations<?, ?> redis) {
		return new Builder(RedisScriptExecutor.of(redis));
	}

	/**
	 * Start building a limiter on an executor; {@link #close()} closes it.
	 * @param executor the executor
	 * @return the builder
	 */
	public static Builder builder(RedisScriptExecutor executor) {
		if (executor == null) {
			throw new IllegalArgumentException("executor must not be null");
		}
		return new Builder(executor);
	}

	/**
	 * Return the script a call under the given limits runs, composed of the fragments of
	 * their algorithms and built once so that its SHA-1 is computed once.
	 * @param limits the limits of a call
	 * @return the script
	 */
	public static RedisScript<List<Long>> script(List<Limit> limits) {
		return LimitScript.script(limits);
	}

	@Override
	protected RateLimiter delegate() {
		return this.engine;
	}

	/**
	 * Close the connection this limiter opened, if any; a connection factory's own
	 * connections are left to the factory.
	 */
	@Override
	public void close() {
		this.engine.close();
	}

	/**
	 * Builds a {@link RedisRateLimiter}.
	 */
	public static final class Builder {

		private final RedisScriptExecutor executor;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Clock clock;

		private boolean countRejected;

		private Builder(RedisScriptExecutor executor) {
			this.executor = executor;
		}

		/**
		 * Set the prefix of every Redis key.
		 * @param keyPrefix the prefix, such as {@code limiter:}; may be empty
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			if (keyPrefix == null || keyPrefix.contains("{") || keyPrefix.contains("}")) {
				throw new IllegalArgumentException(
						"keyPrefix must not be null or contain '{' or '}', was " + keyPrefix);
			}
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Use the application's clock instead of the Redis server's. Instances whose
		 * clocks disagree then disagree on the window by as much; use it only where Redis
		 * refuses {@code TIME} in scripts.
		 * @param clock the clock, or {@code null} for the Redis server's clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Record rejected calls too, so that a client that keeps calling stays locked out
		 * (anti-abuse semantics).
		 * @param countRejected whether rejected calls are recorded
		 * @return this builder
		 */
		public Builder countRejected(boolean countRejected) {
			this.countRejected = countRejected;
			return this;
		}

		/**
		 * Build the limiter.
		 * @return the limiter
		 */
		public RedisRateLimiter build() {
			return new RedisRateLimiter(new RedisEngine(this.executor, this.keyPrefix, this.clock, this.countRejected));
		}

	}

}
