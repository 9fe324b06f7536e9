package dev.limiter.ai;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Tokens reserved, settled and refused per limit and model, as the counter
 * {@code limiter.ai.tokens} (tags {@code limit}, {@code model}, {@code outcome}); never
 * per user. Models are the application's, so the tag stays bounded.
 */
class AiTokens {

	static final String METER = "limiter.ai.tokens";

	static final AiTokens NONE = new AiTokens(null);

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	AiTokens(MeterRegistry registry) {
		this.registry = registry;
	}

	void count(String limit, String model, String outcome, long tokens) {
		if (this.registry == null || tokens <= 0) {
			return;
		}
		String tag = (model != null) ? model : "unknown";
		this.counters
			.computeIfAbsent(limit + '\n' + tag + '\n' + outcome,
					(key) -> Counter.builder(METER)
						.description("Tokens of chat calls reserved, settled or refused under their users' budgets")
						.baseUnit("tokens")
						.tag("limit", limit)
						.tag("model", tag)
						.tag("outcome", outcome)
						.register(this.registry))
			.increment(tokens);
	}

}
