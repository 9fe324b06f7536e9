package dev.limiter.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;

/**
 * Limits how often a method may be called: at most {@link #threshold()} calls in any
 * {@link #period()} per key, counted across every instance of the application.
 * <p>
 * Repeatable: several limits on one method are checked and recorded together. On a class
 * it applies to every public method of the class.
 *
 * <pre class="code">
 * &#064;RateLimit(period = 30, threshold = 2)
 * &#064;GetMapping("/greeting")
 * String greeting() { ... }
 * </pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
@Repeatable(RateLimits.class)
public @interface RateLimit {

	/**
	 * The length of the window, in {@link #unit()}s.
	 * @return the period
	 */
	long period() default 60;

	/**
	 * The unit of {@link #period()}.
	 * @return the time unit
	 */
	TimeUnit unit() default TimeUnit.SECONDS;

	/**
	 * The most calls (permits) admitted in any window; 0 means the named limit in the
	 * configuration supplies it.
	 * @return the threshold
	 */
	long threshold() default 0;

	/**
	 * A SpEL expression over the method's parameters by name (such as {@code "#user"}),
	 * beans ({@code @bean}) and the request that gives the key; empty for the default key
	 * (the method and the user).
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * The name of this limit: {@code limiter.limits.<name>} in the configuration
	 * overrides the numbers given here, and the name labels the limit in headers.
	 * @return the name
	 */
	String name() default "";

	/**
	 * The cost of one call.
	 * @return the permits one call takes
	 */
	long permits() default 1;

	/**
	 * A SpEL expression, evaluated after the method returns, that gives the call's real
	 * cost in permits, with the method's result as {@code #result} and its parameters as
	 * for {@link #key()}, such as {@code #result.usage.totalTokens}. The call is admitted
	 * when {@link #permits()} (the estimate) fit, and the difference is recorded when it
	 * returns: more even past the threshold (later calls wait until the window has room),
	 * less given back. For a {@code Mono} it reads the emitted value; for a {@code Flux}
	 * it is summed over the elements (a {@code null} counts nothing), settled when the
	 * stream ends. An expression that fails or gives a negative number is logged and the
	 * reservation stands. Not with the sliding log. Empty when a call costs its permits.
	 * @return the charge expression, or empty
	 */
	String charge() default "";

	/**
	 * The detail of the response when this limit rejects a call: a message, or a
	 * {@code {code}} looked up in the application's {@code MessageSource}; empty for the
	 * standard message.
	 * @return the message
	 */
	String message() default "";

	/**
	 * What this limit does when Redis cannot answer in time; empty for the configured
	 * default ({@code limiter.failure.policy}). At most one value.
	 * @return the failure policy
	 */
	FailurePolicy[] failurePolicy() default {};

	/**
	 * The threshold each instance applies on its own under {@link FailurePolicy#LOCAL}; 0
	 * for {@link #threshold()}.
	 * @return the per-instance threshold
	 */
	long localThreshold() default 0;

	/**
	 * How this limit counts; empty for the configured default ({@code limiter.algorithm},
	 * the sliding-window log unless set). At most one value.
	 * @return the algorithm
	 */
	Algorithm[] algorithm() default {};

	/**
	 * The number of slices of the window under {@link Algorithm#SLIDING_BUCKETS}: 60
	 * makes one-minute slices of a one-hour window. Other algorithms take no slices.
	 * @return the slices, 1 to {@value Limit#MAX_SLICES}
	 */
	int slices() default Limit.DEFAULT_SLICES;

	/**
	 * The calendar whose windows count this limit: {@code minute}, {@code hour},
	 * {@code day}, {@code week} (ISO, from Monday) or {@code month}, each from boundary
	 * to boundary in {@link #zone()}; {@link #period()} and {@link #unit()} then play no
	 * part. Empty for a sliding window of the period.
	 * @return the calendar, or empty
	 */
	String calendar() default "";

	/**
	 * The IANA time zone whose clock draws the calendar's boundaries, such as
	 * {@code Europe/Berlin}; empty for UTC. Only with {@link #calendar()}.
	 * @return the zone id, or empty
	 */
	String zone() default "";

	/**
	 * A SpEL expression over the same variables as {@link #key()}: when it is false the
	 * call is not limited at all; empty to limit every call. All annotations of a method
	 * must agree on it.
	 * @return the condition
	 */
	String condition() default "";

	/**
	 * Exceptions that give a call's permits back when the method ends with one of them
	 * (or a subclass), so that a client is not charged for the server's failure.
	 * @return the exceptions that refund
	 */
	Class<? extends Throwable>[] refundOn() default {};

	/**
	 * Whether this limit only watches: it decides as usual, but a call it would reject
	 * runs anyway and is counted as {@code shadow-rejected} in the metrics.
	 * {@code limiter.limits.<name>.shadow} and {@code limiter.shadow} override it.
	 * @return whether the limit is in shadow mode
	 */
	boolean shadow() default false;

	/**
	 * How long a call that would be admitted within this time waits instead of being
	 * rejected, such as {@code 500ms}: it waits for the rejection's retry-after, then is
	 * decided again, and waits for the next turn if another call took that one, while the
	 * next turn still comes within this time. Empty for no wait. When the annotations of
	 * a method give several, the longest applies.
	 * @return the longest wait
	 */
	String maxWait() default "";

	/**
	 * How long a caller this limit rejects stays refused, such as {@code 1h}: every call
	 * of that caller is rejected for that long from the rejection, on every instance,
	 * with a {@code Retry-After} that says so, whatever the window holds by then. Empty
	 * for none. {@code limiter.limits.<name>.penalty} overrides it; a reset through the
	 * {@code ratelimits} endpoint lifts it.
	 * @return the penalty
	 */
	String penalty() default "";

	/**
	 * A SpEL expression over the same variables as {@link #key()} that names the caller's
	 * plan, such as {@code "#user.plan"}: the limit then takes the numbers of
	 * {@code limiter.limits.<name>.plans.<plan>}, and its own for a plan that the
	 * configuration does not define. Empty for one set of numbers for everyone.
	 * @return the plan expression
	 */
	String plan() default "";

}
