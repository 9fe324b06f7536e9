package dev.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs a limiter's contract through its non-blocking path: every blocking call is the
 * non-blocking one, joined.
 */
public final class AsyncAsBlocking implements RateLimiter {

	private final RateLimiter delegate;

	private AsyncAsBlocking(RateLimiter delegate) {
		this.delegate = delegate;
	}

	/**
	 * Wrap a limiter.
	 * @param delegate the limiter whose non-blocking path is under test
	 * @return the wrapper
	 */
	public static RateLimiter of(RateLimiter delegate) {
		return new AsyncAsBlocking(delegate);
	}

	@Override
	public Decision acquire(String key, long permits, List<Limit> limits) {
		try {
			return this.delegate.acquireAsync(key, permits, limits).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	@Override
	public CompletableFuture<Decision> acquireAsync(String key, long permits, List<Limit> limits) {
		return this.delegate.acquireAsync(key, permits, limits);
	}

}
