package dev.limiter.internal.call;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.limiter.Decision;

/**
 * Logs the calls that shadowed limits would have rejected, at most once per operation
 * every {@value #INTERVAL_NANOS} nanoseconds, with the number since the last line: never
 * a line per call under load.
 */
final class ShadowLog {

	// The aspect's category, where users already look for these lines.
	private static final Logger logger = LoggerFactory.getLogger(RateLimitAspect.class);

	private static final long INTERVAL_NANOS = 10_000_000_000L;

	private final Map<AnnotatedOperation, long[]> counts = new ConcurrentHashMap<>();

	void rejected(AnnotatedOperation operation, Decision decision) {
		long[] state = this.counts.computeIfAbsent(operation, (o) -> new long[] { 0, Long.MIN_VALUE });
		long count;
		synchronized (state) {
			state[0]++;
			long now = System.nanoTime();
			if (state[1] != Long.MIN_VALUE && now - state[1] < INTERVAL_NANOS) {
				return;
			}
			count = state[0];
			state[0] = 0;
			state[1] = now;
		}
		logger.info("Shadow limit {} of {} would have rejected {} call(s) since its last report (the latest: {})",
				decision.limit(), operation.getDescription(), count, decision);
	}

}
