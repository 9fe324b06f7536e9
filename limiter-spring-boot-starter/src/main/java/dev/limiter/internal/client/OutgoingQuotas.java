package dev.limiter.internal.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.internal.call.CallClock;
import dev.limiter.Decision;
import dev.limiter.RateLimiter;

/**
 * The quotas of the upstreams the application calls, found by the host of a request, and
 * the limiter that counts them.
 */
public final class OutgoingQuotas {

	private static final Logger logger = LoggerFactory.getLogger(OutgoingQuotas.class);

	private final RateLimiter rateLimiter;

	private final CallClock clock;

	private final List<OutgoingQuota> quotas;

	private final Map<String, OutgoingQuota> byHost = new LinkedHashMap<>();

	private final Map<String, OutgoingQuota> byName = new LinkedHashMap<>();

	private volatile UpstreamHolds holds = UpstreamHolds.LOCAL;

	private volatile ClientListener listener = ClientListener.NONE;

	/**
	 * Create the quotas.
	 * @param rateLimiter the limiter that counts them (with the failure policies)
	 * @param quotas the quotas, each with hosts no other quota has
	 * @param clock the time in which calls wait for their turn
	 */
	public OutgoingQuotas(RateLimiter rateLimiter, List<OutgoingQuota> quotas, CallClock clock) {
		this.rateLimiter = rateLimiter;
		this.clock = clock;
		this.quotas = List.copyOf(quotas);
		for (OutgoingQuota quota : quotas) {
			this.byName.put(quota.name(), quota);
			for (String host : quota.hosts()) {
				OutgoingQuota other = this.byHost.putIfAbsent(host, quota);
				if (other != null) {
					throw new IllegalArgumentException("Host '" + host + "' is under limiter.clients." + other.name()
							+ ".hosts and limiter.clients." + quota.name() + ".hosts; give each host to one client");
				}
			}
		}
	}

	public RateLimiter rateLimiter() {
		return this.rateLimiter;
	}

	/**
	 * Return the time in which calls wait for their turn and their waits are measured.
	 * @return the clock
	 */
	public CallClock clock() {
		return this.clock;
	}

	public List<OutgoingQuota> quotas() {
		return this.quotas;
	}

	/**
	 * Share the holds that upstreams ask for with the other instances.
	 * @param holds where holds are told
	 */
	public void setHolds(UpstreamHolds holds) {
		this.holds = holds;
	}

	/**
	 * Tell a listener, such as the metrics, what happens to the requests.
	 * @param listener the listener
	 */
	public void setListener(ClientListener listener) {
		this.listener = listener;
	}

	/**
	 * Return who is told what happens to the requests.
	 * @return the listener
	 */
	public ClientListener listener() {
		return this.listener;
	}

	/**
	 * Hold a client if its upstream's response says its quota is used up, here and,
	 * through the store, on every instance.
	 * @param quota the client's quota
	 * @param status the response's status
	 * @param headers the response's headers by name
	 */
	public void learn(OutgoingQuota quota, int status, UnaryOperator<String> headers) {
		learn(quota, status, headers, 1);
	}

	/**
	 * Hold a client if its upstream's response says its quota is used up, or has fewer
	 * tokens left than a call like this one reserves, here and, through the store, on
	 * every instance.
	 * @param quota the client's quota
	 * @param status the response's status
	 * @param headers the response's headers by name
	 * @param tokens the tokens the call reserved, at least 1
	 */
	public void learn(OutgoingQuota quota, int status, UnaryOperator<String> headers, long tokens) {
		if (status == 429 || status == 503) {
			this.listener.upstreamRejected(quota.name(), status);
		}
		long now = System.currentTimeMillis();
		UpstreamHold hold = UpstreamHold.of(status, headers, now, tokens);
		if (hold != null && quota.hold(hold.duration(), hold.source())) {
			this.holds.announce(quota.name(), now + hold.duration().toMillis());
		}
		UpstreamPolicy policy = UpstreamPolicy.of(headers.apply("RateLimit-Policy"));
		if (policy != null && quota.follow(policy)) {
			this.holds.announcePolicy(quota.name(), policy);
		}
	}

	/**
	 * Wait on the calling thread for a request's turn under its quota: through the
	 * upstream's hold, then for the store's exact wait, for as long as the quota's
	 * {@code max-wait} allows.
	 * @param quota the request's quota
	 * @return the decision that gave the request its turn
	 * @throws dev.limiter.RateLimitUnavailableException if no turn comes within
	 * {@code max-wait}, or the thread is interrupted
	 */
	public Decision awaitTurn(OutgoingQuota quota) {
		return await(quota, () -> quota.ask(this.rateLimiter));
	}

	/**
	 * Wait on the calling thread until the tokens a request may use are reserved under
	 * its quota, as {@link #awaitTurn} waits for its turn; settle them with
	 * {@link #settleTokens} once its answer says what it used.
	 * @param quota the request's quota, which counts tokens
	 * @param estimate the tokens the request may use: its prompt and its answer's bound
	 * @return the decision that reserved them
	 * @throws dev.limiter.CostExceedsLimitException if the estimate is more than the
	 * whole quota
	 * @throws dev.limiter.RateLimitUnavailableException if no reservation fits within
	 * {@code max-wait}
	 */
	public Decision awaitTokens(OutgoingQuota quota, long estimate) {
		if (estimate > quota.tokens().threshold()) {
			this.listener.refused(quota.name());
			throw quota.tooManyTokens(estimate);
		}
		return await(quota, () -> quota.askTokens(this.rateLimiter, Math.max(1, estimate)));
	}

	/**
	 * Charge a request's reservation of tokens what its answer used: the difference is
	 * added, or given back. A store that cannot answer leaves the reservation counted.
	 * @param reservation the decision of {@link #awaitTokens}
	 * @param reserved the tokens it reserved
	 * @param used the tokens the answer used, 0 when the upstream answered none
	 */
	public void settleTokens(Decision reservation, long reserved, long used) {
		long difference = used - Math.max(1, reserved);
		if (difference == 0) {
			return;
		}
		try {
			this.rateLimiter.charge(reservation, difference);
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter could not settle the tokens of a call to an upstream", ex);
		}
	}

	private Decision await(OutgoingQuota quota, Supplier<Decision> ask) {
		long start = this.clock.nanoTime();
		long deadline = quota.deadline();
		boolean waitedOnce = false;
		while (true) {
			long held = quota.heldFor();
			Duration wait;
			if (held > 0) {
				wait = Duration.ofNanos(held);
			}
			else {
				Decision decision = ask.get();
				if (decision.isAllowed()) {
					if (waitedOnce) {
						this.listener.waited(quota.name(), this.clock.nanoTime() - start);
					}
					return decision;
				}
				wait = decision.retryAfter();
			}
			long nanos = quota.waitFor(wait, deadline);
			if (nanos < 0) {
				this.listener.refused(quota.name());
				throw quota.refused(wait);
			}
			waitedOnce = true;
			try {
				this.clock.sleep(Duration.ofNanos(nanos));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw quota.refused(wait);
			}
		}
	}

	/**
	 * Hold a client because its upstream said when to come back in a way of its own (a
	 * gRPC {@code RetryInfo}), here and, through the store, on every instance.
	 * @param quota the client's quota
	 * @param wait how long the upstream asked to wait
	 * @param source what said so, for the log
	 */
	public void hold(OutgoingQuota quota, Duration wait, String source) {
		long now = System.currentTimeMillis();
		if (quota.hold(wait, source)) {
			this.holds.announce(quota.name(), now + wait.toMillis());
		}
	}

	/**
	 * End a call that got its turn under a quota of requests in flight; count any other
	 * call from when it was done: the upstream received it between its turn and its
	 * response, so counted from the response, the next call a window later can never
	 * arrive less than a window after it, however long this one took to be sent (a
	 * connection to open). A store that cannot answer leaves it counted from its turn.
	 * @param turn the decision that gave the call its turn
	 */
	public void done(Decision turn) {
		try {
			// a request in flight ends with its response; one per time counts from it
			if (!this.rateLimiter.finish(turn)) {
				this.rateLimiter.moveToNow(turn);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter could not count a call to an upstream from its response", ex);
		}
	}

	/**
	 * Take a hold that another instance learned.
	 * @param client the client's name
	 * @param untilMillis until when, in milliseconds since the epoch
	 */
	public void held(String client, long untilMillis) {
		OutgoingQuota quota = this.byName.get(client);
		if (quota != null) {
			quota.hold(Duration.ofMillis(untilMillis - System.currentTimeMillis()), "told by another instance");
		}
	}

	/**
	 * Follow a smaller quota that another instance learned from the upstream.
	 * @param client the client's name
	 * @param policy the upstream's quota
	 */
	public void followed(String client, UpstreamPolicy policy) {
		OutgoingQuota quota = this.byName.get(client);
		if (quota != null) {
			quota.follow(policy);
		}
	}

	/**
	 * Return the quota of a host.
	 * @param host the host of a request, or {@code null}
	 * @return its quota, or {@code null} when its requests are not limited
	 */
	public OutgoingQuota forHost(String host) {
		return (host != null) ? this.byHost.get(host.toLowerCase(Locale.ROOT)) : null;
	}

}
