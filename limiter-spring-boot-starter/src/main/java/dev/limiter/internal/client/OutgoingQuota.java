package dev.limiter.internal.client;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Algorithm;
import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.RateLimiter;
import dev.limiter.internal.LogText;

/**
 * One upstream's quota as the application calls it: a named limit counted across every
 * instance under the key {@code c:<name>}, the hosts whose requests count, and how long a
 * call may wait for its turn. A call asks for one permit; a rejection is waited out for
 * its exact retry-after while it fits in the wait, and beyond it the call is not sent.
 * <p>
 * A quota of tokens beside it (a model provider's tokens per minute) is counted under
 * {@code c:<name>:tokens} with the token bucket, as such providers replenish them: a call
 * reserves an estimate before it is sent and is charged its answer's usage after.
 * <p>
 * What the upstream says of its own quota (a 429 or 503 with {@code Retry-After}, or
 * headers that say none is left) holds this instance's calls until the time given.
 */
public final class OutgoingQuota {

	private static final Logger logger = LoggerFactory.getLogger(OutgoingQuota.class);

	/** The longest hold an upstream's headers may impose: beyond it they are garbage. */
	static final Duration LONGEST_HOLD = Duration.ofDays(1);

	private final String name;

	private final List<String> hosts;

	private final Limit configured;

	/** The upstream's quota as known now: configured, or smaller as it announced. */
	private volatile Limit upstream;

	private volatile List<Limit> limits;

	private final Duration maxWait;

	/** The tokens calls are paced under, or {@code null}. */
	private final List<Limit> tokens;

	private final String key;

	private final LongSupplier nanos;

	private final AtomicLong heldUntil;

	/**
	 * Return the window Limiter paces an upstream's quota over: 2% longer than the
	 * upstream's (at least 20 ms, at most 1 s), a margin for the upstream's own clock and
	 * for the token bucket, whose calls are counted from their turn (the others' from
	 * their response, see {@link OutgoingQuotas#done}).
	 * @param period the upstream's window
	 * @return the window paced over
	 */
	public static Duration paced(Duration period) {
		return period.plusMillis(guard(period));
	}

	private static long guard(Duration period) {
		return Math.min(1_000, Math.max(20, period.toMillis() / 50));
	}

	/**
	 * Create a quota.
	 * @param name the client's name, such as {@code github}
	 * @param hosts the host names whose requests count
	 * @param limit the upstream's quota, which calls are paced under
	 * @param maxWait how long a call may wait for its turn
	 * @param nanos the monotonic clock of holds
	 */
	public OutgoingQuota(String name, List<String> hosts, Limit limit, Duration maxWait, LongSupplier nanos) {
		this(name, hosts, limit, null, maxWait, nanos);
	}

	/**
	 * Create a quota of requests and of the tokens their answers use.
	 * @param name the client's name, such as {@code openai}
	 * @param hosts the host names whose requests count
	 * @param limit the upstream's quota of requests, which calls are paced under
	 * @param tokens the upstream's tokens in the same period, or {@code null}
	 * @param maxWait how long a call may wait for its turn
	 * @param nanos the monotonic clock of holds
	 */
	public OutgoingQuota(String name, List<String> hosts, Limit limit, Long tokens, Duration maxWait,
			LongSupplier nanos) {
		this.tokens = (tokens != null)
				? List.of(Limit.of(name, tokens, paced(limit.period())).withAlgorithm(Algorithm.TOKEN_BUCKET)) : null;
		this.name = name;
		this.hosts = hosts.stream().map((host) -> host.trim().toLowerCase(Locale.ROOT)).toList();
		this.configured = limit;
		this.upstream = limit;
		this.limits = List.of(limit.withPeriod(paced(limit.period())));
		this.maxWait = maxWait;
		this.key = "c:" + name;
		this.nanos = nanos;
		this.heldUntil = new AtomicLong(nanos.getAsLong());
	}

	public String name() {
		return this.name;
	}

	public List<String> hosts() {
		return this.hosts;
	}

	/**
	 * Return the limit calls are paced under: the upstream's quota over a paced window.
	 * @return the limit
	 */
	public Limit limit() {
		return this.limits.get(0);
	}

	public Duration maxWait() {
		return this.maxWait;
	}

	/**
	 * Return the limit of tokens calls are paced under, over a paced window.
	 * @return the limit, or {@code null} when the quota counts requests only
	 */
	public Limit tokens() {
		return (this.tokens != null) ? this.tokens.get(0) : null;
	}

	/**
	 * Return the key the quota's tokens are counted under, on every instance.
	 * @return the key
	 */
	public String tokensKey() {
		return this.key + ":tokens";
	}

	/**
	 * Return the key the quota is counted under, on every instance.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Return when a call that starts now must have its turn.
	 * @return the deadline on the monotonic clock
	 */
	public long deadline() {
		return this.nanos.getAsLong() + this.maxWait.toNanos();
	}

	/**
	 * Return how long this instance is held by the upstream.
	 * @return the nanoseconds left, 0 when not held
	 */
	public long heldFor() {
		return Math.max(0, this.heldUntil.get() - this.nanos.getAsLong());
	}

	/**
	 * Ask for a turn, blocking: one permit under the quota.
	 * @param limiter the limiter
	 * @return the decision
	 */
	public Decision ask(RateLimiter limiter) {
		return limiter.acquire(this.key, 1, this.limits);
	}

	/**
	 * Reserve tokens, blocking.
	 * @param limiter the limiter
	 * @param estimate the tokens the call may use
	 * @return the decision
	 */
	public Decision askTokens(RateLimiter limiter, long estimate) {
		return limiter.acquire(tokensKey(), estimate, this.tokens);
	}

	/**
	 * Ask for a turn without blocking.
	 * @param limiter the limiter
	 * @return the decision to come
	 */
	public CompletableFuture<Decision> askAsync(RateLimiter limiter) {
		return limiter.acquireAsync(this.key, 1, this.limits);
	}

	/**
	 * Return how long to wait before asking again after a rejection, or {@code -1} when
	 * the next turn comes after the deadline.
	 * @param wait the time until the next turn
	 * @param deadline the call's deadline
	 * @return the nanoseconds to wait, or {@code -1}
	 */
	public long waitFor(Duration wait, long deadline) {
		long nanos = Math.max(1, wait.toNanos());
		return (this.nanos.getAsLong() + nanos <= deadline) ? nanos : -1;
	}

	/**
	 * Return the failure of a call that cannot get a turn within its wait: it is not
	 * sent. The web layer answers it 503 with {@code Retry-After}: it is not the caller's
	 * quota that ran out.
	 * @param wait the time until the next turn
	 * @return the exception
	 */
	public RateLimitUnavailableException refused(Duration wait) {
		long now = System.currentTimeMillis() * 1_000;
		Decision rejection = Decision.rejected(limit(), 0, wait, wait, now);
		return new RateLimitUnavailableException(
				"Calls to '" + this.name + "' " + this.hosts + " wait for their turn at most " + text(this.maxWait)
						+ "; the next turn is in " + rejection.retryAfterSeconds() + "s",
				this.key, rejection);
	}

	/**
	 * Return the failure of a call whose estimate is more tokens than the whole quota: it
	 * could never have its turn, so it is not sent, and no wait is promised (over HTTP a
	 * 400 without {@code Retry-After}, as every call that can never pass).
	 * @param estimate the tokens the call may use
	 * @return the exception
	 */
	public CostExceedsLimitException tooManyTokens(long estimate) {
		Limit tokens = tokens();
		return new CostExceedsLimitException(
				"A call to '" + this.name + "' " + this.hosts + " may use " + estimate + " tokens, more than the "
						+ tokens.threshold() + " per " + text(this.configured.period()) + " of limiter.clients."
						+ this.name + ".tokens, so it can never pass; ask for fewer tokens (the "
						+ "call's maximum), or raise limiter.clients." + this.name + ".tokens",
				tokensKey(), estimate, tokens);
	}

	/**
	 * Hold this instance's calls for as long as the upstream asked.
	 * @param hold how long, as the upstream's headers say
	 * @param source who said it, for the log
	 * @return whether the hold lasts longer than the one before it
	 */
	public boolean hold(Duration hold, String source) {
		if (hold.isNegative() || hold.isZero() || hold.compareTo(LONGEST_HOLD) > 0) {
			return false;
		}
		long until = this.nanos.getAsLong() + hold.toNanos();
		long before = this.heldUntil.getAndAccumulate(until, Math::max);
		// within a millisecond it is the same hold, told again by another instance
		if (until - before <= 1_000_000) {
			return false;
		}
		logger.info("Limiter: upstream '{}' asked to wait {} ({}); calls to it wait until then", this.name, text(hold),
				LogText.oneLine(source));
		return true;
	}

	/**
	 * Follow the quota an upstream announces when it is smaller than the configured one,
	 * counted as the configured one is (same algorithm, a paced window).
	 * @param policy what the upstream announces
	 * @return whether the quota changed
	 */
	public boolean follow(UpstreamPolicy policy) {
		Limit known = this.upstream;
		// a quota per time says nothing of the requests an upstream takes at once
		if (known.algorithm() == Algorithm.IN_FLIGHT || !policy.isSmallerThan(known.threshold(), known.period())) {
			return false;
		}
		Limit smaller;
		try {
			smaller = Limit.of(this.name, policy.quota(), policy.window()).withAlgorithm(known.algorithm());
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		this.upstream = smaller;
		this.limits = List.of(smaller.withPeriod(paced(smaller.period())));
		logger.info(
				"Limiter: upstream '{}' announces {} per {} (RateLimit-Policy), less than the {} per {} of "
						+ "limiter.clients.{}; calls to it follow the upstream's",
				this.name, policy.quota(), text(policy.window()), this.configured.threshold(),
				text(this.configured.period()), this.name);
		return true;
	}

	private static String text(Duration duration) {
		return duration.toString().substring(2).toLowerCase(Locale.ROOT);
	}

}
