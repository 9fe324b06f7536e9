package dev.limiter.benchmarks;

import java.net.SocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;

/**
 * Counts the commands the client sends, by type: Redis's own statistics also count the
 * commands that scripts call, so they cannot tell round trips apart.
 */
final class CommandCounter implements CommandLatencyRecorder {

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	@Override
	public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
			long firstResponseLatency, long completionLatency) {
		this.counts.computeIfAbsent(commandType.toString().toLowerCase(java.util.Locale.ROOT), (k) -> new LongAdder())
			.increment();
	}

	@Override
	public boolean isEnabled() {
		return true;
	}

	void reset() {
		this.counts.clear();
	}

	Map<String, Long> snapshot() {
		Map<String, Long> snapshot = new TreeMap<>();
		this.counts.forEach((type, count) -> snapshot.put(type, count.sum()));
		return snapshot;
	}

}
