package dev.limiter.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs scripts through Spring Data Redis on any connection factory (Jedis too). The
 * template blocks, so the non-blocking form runs it on this executor's own daemon
 * threads, never on the common pool that the application's parallel streams and
 * {@code CompletableFuture}s share.
 */
final class TemplateScriptExecutor extends RedisScriptExecutor {

	/** As many threads as a blocked template can use well; further calls queue. */
	private static final int THREADS = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

	private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

	private final RedisOperations<?, ?> redis;

	private final ExecutorService threads = Executors.newFixedThreadPool(THREADS, (task) -> {
		Thread thread = new Thread(task, "limiter-template-" + THREAD_NUMBER.incrementAndGet());
		thread.setDaemon(true);
		return thread;
	});

	TemplateScriptExecutor(RedisOperations<?, ?> redis) {
		this.redis = redis;
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<Long> execute(RedisScript<?> script, byte[][] keys, byte[][] args) {
		byte[][] keysAndArgs = new byte[keys.length + args.length][];
		System.arraycopy(keys, 0, keysAndArgs, 0, keys.length);
		System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
		return this.redis.execute((RedisCallback<List<Long>>) (connection) -> {
			try {
				return (List<Long>) connection.scriptingCommands()
					.evalSha(script.getSha1(), ReturnType.MULTI, keys.length, keysAndArgs);
			}
			catch (RuntimeException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				return (List<Long>) connection.scriptingCommands()
					.eval(source(script), ReturnType.MULTI, keys.length, keysAndArgs);
			}
		});
	}

	@Override
	public CompletableFuture<List<Long>> executeAsync(RedisScript<?> script, byte[][] keys, byte[][] args) {
		// Spring Data's template blocks; the caller's thread does not.
		return CompletableFuture.supplyAsync(() -> execute(script, keys, args), this.threads);
	}

	@Override
	public void close() {
		this.threads.shutdown();
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
