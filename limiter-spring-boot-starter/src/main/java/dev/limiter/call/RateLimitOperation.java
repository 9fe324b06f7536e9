package dev.limiter.call;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import dev.limiter.Limit;

/**
 * The resolved rate limits of one method, as listeners and observers see them: every
 * {@code @RateLimit} on the method and on its class, with names completed from the
 * configuration, checked together in one call to the engine; or those of one gateway
 * route.
 */
public interface RateLimitOperation {

	/**
	 * Return the annotated method.
	 * @return the method, or {@code null} for a gateway route's limits
	 */
	Method getMethod();

	/**
	 * Return the method as shown in messages, such as
	 * {@code com.example.OrderController.order(String)}.
	 * @return the description
	 */
	String getDescription();

	/**
	 * Return what the operation's counters belong to: the first part of every key of its
	 * calls. It is the limit's name when every limit of the method carries the same
	 * {@code name} (methods that share a name share its counters), otherwise the method,
	 * so that two limited methods never count on one key.
	 * @return the scope, such as {@code n:search} or {@code m:com.example.Mailer.send}
	 */
	String getScope();

	/**
	 * Return the limits, in the order of the annotations (class first).
	 * @return the limits
	 */
	List<Limit> getLimits();

	/**
	 * Return the limits that reject calls.
	 * @return the enforced limits, possibly none
	 */
	List<Limit> getEnforcedLimits();

	/**
	 * Return the limits in shadow mode: they decide, but a call they would reject runs.
	 * @return the shadowed limits, possibly none
	 */
	List<Limit> getShadowLimits();

	/**
	 * Return the permits one call takes.
	 * @return the permits
	 */
	long getPermits();

	/**
	 * Return how long a call that would be admitted within this time waits instead of
	 * being rejected.
	 * @return the longest wait, zero for none
	 */
	Duration getMaxWait();

	/**
	 * Return the key expression shared by the annotations, empty for the default key.
	 * @return the key expression
	 */
	String getKeySource();

	/**
	 * Return whether a call that ended with an exception gives its permits back.
	 * @param failure the exception
	 * @return whether it is one of the annotation's {@code refundOn}
	 */
	boolean refundsOn(Throwable failure);

}
