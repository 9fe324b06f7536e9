package dev.limiter.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.AbstractRateLimiter;
import dev.limiter.Decision;
import dev.limiter.Limit;

/**
 * A {@link dev.limiter.RateLimiter} that keeps the same exact sliding-window logs as the
 * Redis one inside this JVM: for one instance, for tests, and as the local fallback when
 * Redis is down.
 * <p>
 * Thread-safe: each key is decided under its own lock. Memory is bounded: a log holds at
 * most its threshold of entries, and keys whose windows have emptied are evicted by a
 * sweep that runs, amortized, as calls come in.
 */
public final class InMemoryRateLimiter extends AbstractRateLimiter {

	private static final int MIN_SWEEP_INTERVAL = 1024;

	private final Clock clock;

	private final boolean countRejected;

	private final Map<String, Entry> entries = new ConcurrentHashMap<>();

	private final AtomicLong calls = new AtomicLong();

	private volatile long nextSweep = MIN_SWEEP_INTERVAL;

	/**
	 * Create a limiter on the system clock that records admitted calls only.
	 */
	public InMemoryRateLimiter() {
		this(Clock.systemUTC(), false);
	}

	/**
	 * Create a limiter.
	 * @param clock the clock that places calls in their windows
	 * @param countRejected whether rejected calls are recorded too
	 */
	public InMemoryRateLimiter(Clock clock, boolean countRejected) {
		if (clock == null) {
			throw new IllegalArgumentException("clock must not be null");
		}
		this.clock = clock;
		this.countRejected = countRejected;
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		long now = epochMicros(this.clock);
		Decision decision;
		while (true) {
			Entry entry = this.entries.computeIfAbsent(key, (k) -> new Entry());
			synchronized (entry) {
				if (!entry.evicted) {
					decision = entry.acquire(now, permits, limits, this.countRejected);
					break;
				}
			}
		}
		if (this.calls.incrementAndGet() >= this.nextSweep) {
			sweep(now);
		}
		return decision;
	}

	/**
	 * Return how many keys are held.
	 * @return the number of keys with a log that is not known to be empty
	 */
	public int size() {
		return this.entries.size();
	}

	/**
	 * Forget every call under every limit, as if the limiter had just been created; for
	 * tests that start each case with full quotas.
	 */
	public void reset() {
		this.entries.clear();
	}

	/**
	 * Evict every key whose windows have emptied by now.
	 */
	public void evictExpired() {
		sweep(epochMicros(this.clock));
	}

	private void sweep(long now) {
		this.nextSweep = this.calls.get() + Math.max(MIN_SWEEP_INTERVAL, this.entries.size());
		for (Iterator<Map.Entry<String, Entry>> iterator = this.entries.entrySet().iterator(); iterator.hasNext();) {
			Entry entry = iterator.next().getValue();
			synchronized (entry) {
				if (entry.expiresAt <= now) {
					entry.evicted = true;
					iterator.remove();
				}
			}
		}
	}

	/**
	 * The logs of one caller key, one per limit window, guarded by the entry's monitor.
	 */
	private static final class Entry {

		private final List<Limit> windows = new ArrayList<>(2);

		private final List<LongRing> logs = new ArrayList<>(2);

		private long expiresAt;

		private boolean evicted;

		Decision acquire(long now, long permits, List<Limit> limits, boolean countRejected) {
			int size = limits.size();
			LongRing[] logs = new LongRing[size];
			boolean allowed = true;
			for (int i = 0; i < size; i++) {
				Limit limit = limits.get(i);
				LongRing log = log(limit);
				logs[i] = log;
				// the window is (now - period, now]: an entry at now - period has left it
				long horizon = now - limit.periodMicros();
				int expired = 0;
				while (expired < log.size() && log.get(expired) <= horizon) {
					expired++;
				}
				log.removeFirst(expired);
				if (log.size() + permits > limit.threshold()) {
					allowed = false;
				}
			}
			if (allowed || countRejected) {
				for (int i = 0; i < size; i++) {
					Limit limit = limits.get(i);
					LongRing log = logs[i];
					log.add(now, permits);
					if (log.size() > limit.threshold()) {
						// only rejected calls get here: the newest threshold entries
						// decide
						log.removeFirst((int) (log.size() - limit.threshold()));
					}
					this.expiresAt = Math.max(this.expiresAt, now + limit.periodMicros());
				}
			}
			if (allowed) {
				int decider = 0;
				long remaining = Long.MAX_VALUE;
				for (int i = 0; i < size; i++) {
					long left = limits.get(i).threshold() - logs[i].size();
					if (left < remaining) {
						remaining = left;
						decider = i;
					}
				}
				return Decision.allowed(limits.get(decider), remaining, ofMicros(limits.get(decider).periodMicros()),
						now);
			}
			// A rejection waits for the limit that frees up last, measured on the logs as
			// they
			// are now (with this call in them when rejected calls count).
			int decider = 0;
			long retryAfter = 0;
			for (int i = 0; i < size; i++) {
				Limit limit = limits.get(i);
				long excess = logs[i].size() + permits - limit.threshold();
				if (excess > 0) {
					long wait = logs[i].get((int) excess - 1) + limit.periodMicros() - now;
					if (retryAfter == 0 || wait > retryAfter) {
						retryAfter = wait;
						decider = i;
					}
				}
			}
			Limit deciding = limits.get(decider);
			long remaining = Math.max(0, deciding.threshold() - logs[decider].size());
			long resetAfter = logs[decider].last() + deciding.periodMicros() - now;
			return Decision.rejected(deciding, remaining, ofMicros(retryAfter), ofMicros(resetAfter), now);
		}

		private LongRing log(Limit limit) {
			for (int i = 0; i < this.windows.size(); i++) {
				if (this.windows.get(i).sameWindowAs(limit)) {
					return this.logs.get(i);
				}
			}
			this.windows.add(limit);
			LongRing log = new LongRing((int) Math.min(limit.threshold(), 16));
			this.logs.add(log);
			return log;
		}

	}

}
