package dev.limiter.internal.adaptive;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A backend that serves at most {@code servers} calls at once, each for about its service
 * time, and queues the rest (so latency grows with load), offered calls at a steady
 * random rate by an open-loop client, with an adaptive limit (or none) in front: in
 * simulated time, so that a minute of overload takes milliseconds and the same seed gives
 * the same run.
 */
final class BackendSimulation {

	private static final long SECOND = 1_000_000_000L;

	private final Random random;

	private final long serviceNanos;

	private final long timeoutNanos;

	private final int maxQueue;

	private final PriorityQueue<long[]> events = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));

	private final ArrayDeque<Call> waiting = new ArrayDeque<>();

	private long now;

	private int servers;

	private int busy;

	private final List<Second> seconds = new ArrayList<>();

	private final List<Call> calls = new ArrayList<>();

	/**
	 * Create a backend.
	 * @param seed the random seed
	 * @param servers how many calls it serves at once
	 * @param serviceMillis the mean time of a call, jittered by ±20%
	 * @param timeoutMillis after how long a caller gives up on a call, which then counts
	 * as dropped (it still occupies the backend)
	 */
	BackendSimulation(long seed, int servers, long serviceMillis, long timeoutMillis) {
		this(seed, servers, serviceMillis, timeoutMillis, Integer.MAX_VALUE);
	}

	/**
	 * Create a backend that refuses a call at once (a 503, a drop) when as many as
	 * {@code maxQueue} wait.
	 */
	BackendSimulation(long seed, int servers, long serviceMillis, long timeoutMillis, int maxQueue) {
		this.maxQueue = maxQueue;
		this.random = new Random(seed);
		this.servers = servers;
		this.serviceNanos = serviceMillis * 1_000_000;
		this.timeoutNanos = timeoutMillis * 1_000_000;
	}

	LongSupplier clock() {
		return () -> this.now;
	}

	/**
	 * Run the backend: calls arrive at {@code perSecond}; at {@code changeAtSecond} its
	 * servers become {@code serversAfter}.
	 * @param limit the limit in front, or {@code null} for none
	 * @param perSecond the calls offered a second
	 * @param durationSeconds how long to run
	 * @param changeAtSecond when the servers change, or -1
	 * @param serversAfter the servers from then on
	 * @return the run, second by second
	 */
	Run run(AdaptiveLimit limit, double perSecond, int durationSeconds, int changeAtSecond, int serversAfter) {
		long end = durationSeconds * SECOND;
		long next = 0;
		for (int i = 0; i < durationSeconds; i++) {
			this.seconds.add(new Second());
		}
		// events: {time, kind (0 arrival, 1 completion), call index}
		this.events.add(new long[] { next, 0, -1 });
		if (changeAtSecond >= 0) {
			this.events.add(new long[] { changeAtSecond * SECOND, 2, serversAfter });
		}
		while (!this.events.isEmpty()) {
			long[] event = this.events.poll();
			if (event[0] >= end) {
				break;
			}
			this.now = event[0];
			Second second = this.seconds.get((int) (this.now / SECOND));
			if (event[1] == 0) {
				second.offered++;
				AdaptiveLimit.Permit permit = (limit != null) ? limit.tryAcquire(null) : null;
				if (limit != null && permit == null) {
					second.refused++;
				}
				else {
					Call call = new Call(this.now, permit, this.calls.size());
					this.calls.add(call);
					if (this.busy < this.servers) {
						start(call);
					}
					else if (this.waiting.size() < this.maxQueue) {
						this.waiting.add(call);
					}
					else {
						second.dropped++;
						second.refusedByBackend++;
						if (permit != null) {
							permit.end(true);
						}
					}
				}
				long gap = (long) (-Math.log(1 - this.random.nextDouble()) * SECOND / perSecond);
				this.events.add(new long[] { this.now + Math.max(1, gap), 0, -1 });
			}
			else if (event[1] == 1) {
				Call call = this.calls.get((int) event[2]);
				this.busy--;
				long latency = this.now - call.arrived;
				boolean dropped = latency > this.timeoutNanos;
				second.latencies.add(latency);
				if (dropped) {
					second.dropped++;
				}
				else {
					second.served++;
				}
				if (call.permit != null) {
					call.permit.end(dropped);
				}
				while (this.busy < this.servers && !this.waiting.isEmpty()) {
					start(this.waiting.poll());
				}
			}
			else {
				this.servers = (int) event[2];
			}
			if (limit != null) {
				second.limitAtEnd = limit.limit();
			}
		}
		return new Run(this.seconds);
	}

	private void start(Call call) {
		this.busy++;
		long service = (long) (this.serviceNanos * (0.8 + 0.4 * this.random.nextDouble()));
		this.events.add(new long[] { this.now + service, 1, call.index });
	}

	private static final class Call {

		final long arrived;

		final AdaptiveLimit.Permit permit;

		final int index;

		Call(long arrived, AdaptiveLimit.Permit permit, int index) {
			this.arrived = arrived;
			this.permit = permit;
			this.index = index;
		}

	}

	/** What happened in one second. */
	static final class Second {

		long offered;

		long refused;

		long served;

		long dropped;

		long refusedByBackend;

		int limitAtEnd;

		final List<Long> latencies = new ArrayList<>();

	}

	/** A run, second by second. */
	record Run(List<Second> seconds) {

		/** The calls served in time a second, on average over [from, to). */
		double goodput(int from, int to) {
			return this.seconds.subList(from, to).stream().mapToLong((second) -> second.served).sum()
					/ (double) (to - from);
		}

		/** The 99th percentile of the served calls' latencies over [from, to), in ms. */
		double p99Millis(int from, int to) {
			long[] all = this.seconds.subList(from, to)
				.stream()
				.flatMap((second) -> second.latencies.stream())
				.mapToLong(Long::longValue)
				.toArray();
			Arrays.sort(all);
			return (all.length == 0) ? 0 : all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6;
		}

		/** The calls the backend refused over [from, to). */
		long refusedByBackend(int from, int to) {
			return this.seconds.subList(from, to).stream().mapToLong((second) -> second.refusedByBackend).sum();
		}

		/** The limit at the end of each second. */
		int[] limits() {
			return this.seconds.stream().mapToInt((second) -> second.limitAtEnd).toArray();
		}

		<T> List<T> each(Function<Second, T> value) {
			return this.seconds.stream().map(value).toList();
		}

	}

}
