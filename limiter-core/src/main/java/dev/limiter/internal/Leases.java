package dev.limiter.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;

/**
 * The slots in flight that one engine granted and whose calls still run: renewed
 * together, all of them in one pass of the engine every third of the shortest lease, so
 * that a running call keeps its slot however long it runs, and a slot whose instance died
 * frees itself when its lease ends.
 */
public final class Leases {

	private static final Logger logger = LoggerFactory.getLogger(Leases.class);

	/** The shortest interval between two renewals, whatever the lease. */
	static final Duration SHORTEST_INTERVAL = Duration.ofMillis(100);

	private static volatile ScheduledExecutorService scheduler;

	private final Set<Decision.Grant> held = ConcurrentHashMap.newKeySet();

	private final Consumer<List<Decision.Grant>> renewal;

	private long intervalNanos = Long.MAX_VALUE;

	private ScheduledFuture<?> task;

	private boolean warned;

	private boolean onDemand;

	/**
	 * Create the leases of one engine.
	 * @param renewal renews the leases of the grants given, all in one pass of the store
	 */
	public Leases(Consumer<List<Decision.Grant>> renewal) {
		this.renewal = renewal;
	}

	/**
	 * Keep renewing a grant's slots until {@link #drop}.
	 * @param grant an admitted grant under at least one in-flight limit
	 */
	public void hold(Decision.Grant grant) {
		this.held.add(grant);
		long interval = intervalNanos(grant.limits());
		synchronized (this) {
			if (interval < this.intervalNanos && !this.onDemand) {
				if (this.task != null) {
					this.task.cancel(false);
				}
				this.intervalNanos = interval;
				this.task = scheduler().scheduleWithFixedDelay(this::renewTick, interval, interval,
						TimeUnit.NANOSECONDS);
			}
		}
	}

	/**
	 * Stop renewing a grant's slots: its call ended.
	 * @param grant the grant
	 */
	public void drop(Decision.Grant grant) {
		this.held.remove(grant);
	}

	/**
	 * Return the grants whose slots are renewed.
	 * @return how many grants are held
	 */
	public int size() {
		return this.held.size();
	}

	/**
	 * Renew every held slot now, in one pass of the engine; the scheduled renewal's work,
	 * and a test's.
	 */
	public void renewAll() {
		List<Decision.Grant> grants = new ArrayList<>(this.held);
		if (!grants.isEmpty()) {
			this.renewal.accept(grants);
		}
	}

	/**
	 * Renew only when {@link #renewAll} is called, never on a schedule: for tests that
	 * drive time themselves.
	 */
	public synchronized void renewOnlyOnDemand() {
		this.onDemand = true;
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
	}

	/**
	 * Stop the scheduled renewal; held slots then free themselves when their leases end.
	 */
	public synchronized void stop() {
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
		this.intervalNanos = Long.MAX_VALUE;
		this.held.clear();
	}

	private void renewTick() {
		try {
			renewAll();
			this.warned = false;
		}
		catch (RuntimeException ex) {
			// the store cannot answer: the slots free themselves when their leases end,
			// which only frees room early for calls still running
			if (!this.warned) {
				this.warned = true;
				logger.warn("Could not renew the leases of {} calls in flight; their slots free themselves when "
						+ "their leases end if the store stays unreachable", this.held.size(), ex);
			}
		}
		synchronized (this) {
			if (this.held.isEmpty() && this.task != null) {
				this.task.cancel(false);
				this.task = null;
				this.intervalNanos = Long.MAX_VALUE;
			}
		}
	}

	private static long intervalNanos(List<Limit> limits) {
		long shortest = Long.MAX_VALUE;
		for (Limit limit : limits) {
			if (AlgorithmDescriptor.of(limit.algorithm()).holdsSlots()) {
				shortest = Math.min(shortest, limit.period().toNanos() / 3);
			}
		}
		return Math.max(shortest, SHORTEST_INTERVAL.toNanos());
	}

	private static ScheduledExecutorService scheduler() {
		ScheduledExecutorService current = scheduler;
		if (current == null) {
			synchronized (Leases.class) {
				current = scheduler;
				if (current == null) {
					ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
						Thread thread = new Thread(runnable, "limiter-leases");
						thread.setDaemon(true);
						return thread;
					});
					executor.setRemoveOnCancelPolicy(true);
					scheduler = executor;
					current = executor;
				}
			}
		}
		return current;
	}

}
