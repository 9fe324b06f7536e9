package dev.limiter.internal.call;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.IntSupplier;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;

/**
 * The calls running on this instance under each in-flight limit, by the limit's name:
 * what the {@code limiter.calls.in.flight} gauge reads. A call counts from its admission
 * until its end, once, however often its end is told.
 */
public final class CallsInFlight {

	private final Map<String, Set<Decision>> byLimit = new ConcurrentHashMap<>();

	private volatile BiConsumer<String, IntSupplier> watcher = (name, count) -> {
	};

	/**
	 * Be told of each limit's count the first time a call runs under it, such as to
	 * register a gauge.
	 * @param watcher receives the limit's name and its count of calls in flight
	 */
	public void watch(BiConsumer<String, IntSupplier> watcher) {
		this.watcher = watcher;
		this.byLimit.forEach((name, calls) -> watcher.accept(name, calls::size));
	}

	void started(Decision decision, Iterable<Limit> limits) {
		for (Limit limit : limits) {
			if (AlgorithmDescriptor.of(limit.algorithm()).holdsSlots()) {
				calls(limit.name()).add(decision);
			}
		}
	}

	void ended(Decision decision, Iterable<Limit> limits) {
		for (Limit limit : limits) {
			Set<Decision> calls = this.byLimit.get(limit.name());
			if (calls != null) {
				calls.remove(decision);
			}
		}
	}

	private Set<Decision> calls(String name) {
		Set<Decision> calls = this.byLimit.get(name);
		if (calls != null) {
			return calls;
		}
		Set<Decision> created = ConcurrentHashMap.newKeySet();
		Set<Decision> existing = this.byLimit.putIfAbsent(name, created);
		if (existing != null) {
			return existing;
		}
		this.watcher.accept(name, created::size);
		return created;
	}

}
