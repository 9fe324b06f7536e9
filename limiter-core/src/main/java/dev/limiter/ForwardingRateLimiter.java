package dev.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link RateLimiter} that passes every call to another one, for decorators that change
 * a few calls and pass the rest on, as Limiter's own stores and decorators do.
 */
public abstract class ForwardingRateLimiter implements RateLimiter {

	/**
	 * Return the limiter every call is passed to.
	 * @return the delegate
	 */
	protected abstract RateLimiter delegate();

	@Override
	public Decision acquire(String key, long permits, List<Limit> limits) {
		return delegate().acquire(key, permits, limits);
	}

	@Override
	public CompletableFuture<Decision> acquireAsync(String key, long permits, List<Limit> limits) {
		return delegate().acquireAsync(key, permits, limits);
	}

	@Override
	public boolean release(Decision decision) {
		return delegate().release(decision);
	}

	@Override
	public boolean finish(Decision decision) {
		return delegate().finish(decision);
	}

	@Override
	public Decision charge(Decision decision, long permits) {
		return delegate().charge(decision, permits);
	}

	@Override
	public CompletableFuture<Decision> chargeAsync(Decision decision, long permits) {
		return delegate().chargeAsync(decision, permits);
	}

	@Override
	public boolean moveToNow(Decision decision) {
		return delegate().moveToNow(decision);
	}

	@Override
	public List<Usage> usage(String key, List<Limit> limits) {
		return delegate().usage(key, limits);
	}

	@Override
	public void reset(String key, List<Limit> limits) {
		delegate().reset(key, limits);
	}

}
