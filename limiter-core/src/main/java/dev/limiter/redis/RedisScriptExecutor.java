package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.internal.redis.LimiterConnectionFactories;

/**
 * Runs rate-limit scripts on Redis, the transport under every algorithm: {@code EVALSHA},
 * falling back to {@code EVAL} when Redis answers {@code NOSCRIPT} (after a restart, a
 * failover or {@code SCRIPT FLUSH}), blocking ({@link #execute}) or not
 * ({@link #executeAsync}), and never waiting longer than its timeout on a Redis that does
 * not answer.
 * <p>
 * It knows nothing of algorithms: a script, its keys and arguments go in, the script's
 * integers come out.
 */
public abstract class RedisScriptExecutor implements AutoCloseable {

	RedisScriptExecutor() {
	}

	/**
	 * Create an executor on a connection factory: with Lettuce, on a connection of its
	 * own from the factory's client (the client's options apply, such as reconnect
	 * behaviour, TLS and cluster topology), otherwise through Spring Data Redis.
	 * @param connectionFactory the connection factory
	 * @return the executor; {@link #close()} closes what it opened
	 */
	public static RedisScriptExecutor of(RedisConnectionFactory connectionFactory) {
		if (connectionFactory == null) {
			throw new IllegalArgumentException("connectionFactory must not be null");
		}
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return new LettuceScriptExecutor(lettuce);
		}
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
		template.afterPropertiesSet();
		return new TemplateScriptExecutor(template);
	}

	/**
	 * Create an executor on a Lettuce connection that the caller owns and may share with
	 * other work; {@link #close()} leaves it open.
	 * @param commands the asynchronous commands of a connection with a byte-array codec
	 * @param timeout the longest a call waits for a script
	 * @return the executor
	 */
	public static RedisScriptExecutor of(RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
		if (commands == null) {
			throw new IllegalArgumentException("commands must not be null");
		}
		LimiterConnectionFactories.requirePositive(timeout);
		return new LettuceScriptExecutor(commands, timeout);
	}

	/**
	 * Create an executor that runs scripts through a Spring Data Redis template, on
	 * whatever connection factory the template has; its non-blocking form runs the
	 * blocking one on another thread.
	 * @param redis the template
	 * @return the executor
	 */
	public static RedisScriptExecutor of(RedisOperations<?, ?> redis) {
		if (redis == null) {
			throw new IllegalArgumentException("redis must not be null");
		}
		return new TemplateScriptExecutor(redis);
	}

	/**
	 * Run a script and wait for its integers.
	 * @param script the script, whose SHA-1 is computed once
	 * @param keys the keys
	 * @param args the arguments
	 * @return the script's integers
	 * @throws RedisException if Redis fails or does not answer in time
	 */
	public abstract List<Long> execute(RedisScript<?> script, byte[][] keys, byte[][] args);

	/**
	 * Run a script without blocking the calling thread.
	 * @param script the script, whose SHA-1 is computed once
	 * @param keys the keys
	 * @param args the arguments
	 * @return the script's integers to come; completes exceptionally with a
	 * {@link RedisException} if Redis fails or does not answer in time
	 */
	public abstract CompletableFuture<List<Long>> executeAsync(RedisScript<?> script, byte[][] keys, byte[][] args);

	/**
	 * Whether the store may be a Redis Cluster, whose scripts touch one slot: keys of
	 * different caller keys then go in separate script calls. An executor that cannot
	 * tell says so.
	 * @return {@code false} only when the store is known to be one server
	 */
	boolean mayBeCluster() {
		return true;
	}

	/**
	 * Close the connection this executor opened, if any; a connection factory's own
	 * connections are left to the factory.
	 */
	@Override
	public void close() {
	}

	static byte[] source(RedisScript<?> script) {
		return script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

}
