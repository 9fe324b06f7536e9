package dev.limiter.graphql;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Points charged and refused per operation name, as the counter
 * {@code limiter.graphql.points} (tags {@code operation} and {@code outcome}). Operation
 * names are chosen by clients: past {@link #MAX_NAMES} distinct names, or for a name that
 * is not a GraphQL name, the tag is {@code other}, so a client cannot grow the registry.
 */
class GraphQlPoints {

	/** How many operation names get a tag of their own. */
	static final int MAX_NAMES = 200;

	static final String METER = "limiter.graphql.points";

	private static final Pattern NAME = Pattern.compile("[_A-Za-z][_0-9A-Za-z]{0,63}");

	static final GraphQlPoints NONE = new GraphQlPoints(null);

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	GraphQlPoints(MeterRegistry registry) {
		this.registry = registry;
	}

	void charged(String operation, long points) {
		count(operation, "charged", points);
	}

	void refused(String operation, long points) {
		count(operation, "refused", points);
	}

	private void count(String operation, String outcome, long points) {
		if (this.registry == null || points <= 0) {
			return;
		}
		String name = (operation == null) ? "anonymous"
				: (NAME.matcher(operation).matches() && this.counters.size() < MAX_NAMES * 2) ? operation : "other";
		this.counters
			.computeIfAbsent(name + '\n' + outcome,
					(key) -> Counter.builder(METER)
						.description("Points of GraphQL operations charged to, or refused by, their callers' budgets")
						.baseUnit("points")
						.tag("operation", name)
						.tag("outcome", outcome)
						.register(this.registry))
			.increment(points);
	}

}
