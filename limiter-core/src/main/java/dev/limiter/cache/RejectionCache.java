package dev.limiter.cache;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.Limit;

/**
 * The rejection cache as a limiter and its decorators offer it: the rejections a limiter
 * remembers until their retry-after, which a caller may answer before doing any work the
 * call needs, without asking the store.
 */
public interface RejectionCache {

	/**
	 * Return the rejection of a call that the cache remembers, without asking the store
	 * and without recording anything; {@code null} when only the store can tell. A cached
	 * rejection is the decision the limiter would return for the same call now.
	 * @param key what is limited; not blank
	 * @param permits the cost of the call
	 * @param limits the limits to check together, at least one
	 * @return the rejection, or {@code null}
	 */
	Decision cachedRejection(String key, long permits, List<Limit> limits);

	/**
	 * Forget the rejections of a key that the cache remembers, so that its next call asks
	 * the store; called after another instance reset the key in the store.
	 * @param key the key
	 */
	void forgetCachedRejections(String key);

}
