package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.internal.limits.InvalidLimitException;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.internal.limits.LimitResolver;

/**
 * Checks every {@code limiter.*} property once, when the properties are bound, so that a
 * bad value stops the start naming the property, whichever store or web stack the
 * application ends up with.
 */
final class LimiterPropertiesValidator {

	private LimiterPropertiesValidator() {
	}

	/**
	 * Check the properties.
	 * @param properties the bound properties
	 * @throws InvalidConfigurationPropertyValueException naming the first bad property
	 */
	static void validate(LimiterProperties properties) {
		String keyPrefix = properties.getKeyPrefix();
		if (keyPrefix == null || keyPrefix.contains("{") || keyPrefix.contains("}")) {
			throw new InvalidConfigurationPropertyValueException("limiter.key-prefix", keyPrefix,
					"The prefix must not contain '{' or '}', which would move keys to another cluster slot.");
		}
		Duration timeout = properties.getTimeout();
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new InvalidConfigurationPropertyValueException("limiter.timeout", timeout,
					"The timeout must be positive, such as 50ms.");
		}
		int status = properties.getFailure().getStatus();
		// Both statuses tell a client to come back after Retry-After; 503 says the
		// service is unavailable, 429 hides the outage behind a rate limit.
		if (status != 503 && status != 429) {
			throw new InvalidConfigurationPropertyValueException("limiter.failure.status", status,
					"The status must be 503 (Service Unavailable) or 429 (Too Many Requests).");
		}
		if (properties.getMemory().getMaximumKeys() < 1) {
			throw new InvalidConfigurationPropertyValueException("limiter.memory.maximum-keys",
					properties.getMemory().getMaximumKeys(), "The maximum must be at least 1, such as 100000.");
		}
		if (properties.getRejectionCache().getMaximumSize() < 1) {
			throw new InvalidConfigurationPropertyValueException("limiter.rejection-cache.maximum-size",
					properties.getRejectionCache().getMaximumSize(), "The maximum must be at least 1, such as 10000.");
		}
		LimiterProperties.Breaker breaker = properties.getBreaker();
		if (breaker.getFailureThreshold() < 1) {
			throw new InvalidConfigurationPropertyValueException("limiter.breaker.failure-threshold",
					breaker.getFailureThreshold(), "The threshold must be at least 1.");
		}
		Duration openDuration = breaker.getOpenDuration();
		if (openDuration == null || openDuration.isNegative()) {
			throw new InvalidConfigurationPropertyValueException("limiter.breaker.open-duration", openDuration,
					"The duration must not be negative, such as 1s.");
		}
		if (properties.getAlgorithm() == Algorithm.ADAPTIVE) {
			throw new InvalidConfigurationPropertyValueException("limiter.algorithm", "adaptive",
					"An adaptive limit is configured by name: set limiter.limits.<name>.algorithm to adaptive, and "
							+ "keep a stored algorithm (such as sliding-log) as the default.");
		}
		properties.getLimits().forEach(LimiterPropertiesValidator::validate);
		properties.getClients().forEach(LimiterPropertiesValidator::validate);
		properties.getRetryBudgets().forEach(LimiterPropertiesValidator::validate);
	}

	static void validate(String name, LimiterProperties.RetryBudgetSettings budget) {
		String property = "limiter.retry-budgets." + name;
		double ratio = budget.getRatio();
		if (!(ratio >= 0 && ratio <= 1)) {
			throw new InvalidConfigurationPropertyValueException(property + ".ratio", ratio,
					"The ratio is the part of the first attempts that retries may add, between 0 and 1, such as 0.2.");
		}
		if (budget.getMinPerSecond() < 0) {
			throw new InvalidConfigurationPropertyValueException(property + ".min-per-second", budget.getMinPerSecond(),
					"The retries a second must not be negative, such as 10.");
		}
		if (ratio == 0 && budget.getMinPerSecond() == 0) {
			throw new InvalidConfigurationPropertyValueException(property + ".ratio", ratio,
					"A budget with a ratio of 0 and no min-per-second allows no retry at all: give either a ratio "
							+ "above 0, such as 0.2, or a min-per-second.");
		}
	}

	static void validate(String name, LimiterProperties.Client client) {
		String property = "limiter.clients." + name;
		if (client.getHosts() == null
				|| client.getHosts().stream().allMatch((host) -> host == null || host.isBlank())) {
			throw new InvalidConfigurationPropertyValueException(property + ".hosts", client.getHosts(),
					"Give the client the host names whose requests count, such as api.github.com.");
		}
		if (client.getThreshold() == null) {
			throw new InvalidConfigurationPropertyValueException(property + ".threshold", null,
					"Give the client the upstream's quota: a threshold and a period, such as 5000 per 1h.");
		}
		if (client.getPeriod() == null) {
			throw new InvalidConfigurationPropertyValueException(property + ".period", null,
					"Give the client the window of its threshold, such as 1h or 1s.");
		}
		try {
			Limit.of(name, client.getThreshold(), Limit.MIN_PERIOD);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".threshold", client.getThreshold(),
					ex.getMessage());
		}
		try {
			Limit.of(name, 1, client.getPeriod());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".period", client.getPeriod(),
					ex.getMessage());
		}
		if (client.getMaxWait() == null || client.getMaxWait().isNegative()) {
			throw new InvalidConfigurationPropertyValueException(property + ".max-wait", client.getMaxWait(),
					"Set how long a request may wait for its turn, 0 or more, such as 30s.");
		}
		if (client.getAlgorithm() == Algorithm.ADAPTIVE) {
			throw new InvalidConfigurationPropertyValueException(property + ".algorithm", "adaptive",
					"An outgoing quota is shared by every instance and counted in the store: use in-flight, "
							+ "token-bucket, sliding-buckets, sliding-log or calendar.");
		}
		if (client.getTokens() != null) {
			if (client.getAlgorithm() == Algorithm.IN_FLIGHT) {
				throw new InvalidConfigurationPropertyValueException(property + ".tokens", client.getTokens(),
						"Tokens are a quota per time; give them a client of their own that is not in-flight.");
			}
			try {
				Limit.of(name, client.getTokens(), Limit.MIN_PERIOD);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".tokens", client.getTokens(),
						ex.getMessage());
			}
		}
	}

	/**
	 * Check an adaptive limit: a threshold (the most it learns up to), how it learns
	 * within it, plans that take a share of it, and none of what a stored limit's window
	 * or store failures need.
	 */
	private static void validateAdaptive(String name, LimiterProperties.NamedLimit limit) {
		String property = "limiter.limits." + name;
		String why = "an adaptive limit counts the calls in flight on each instance, with no window and no store";
		Long threshold = limit.getThreshold();
		if (threshold == null || threshold < 1 || threshold > Integer.MAX_VALUE) {
			throw new InvalidConfigurationPropertyValueException(property + ".threshold", threshold,
					"Give the adaptive limit the most calls in flight each instance may learn up to, between 1 and "
							+ Integer.MAX_VALUE + ", such as 200.");
		}
		Object[][] notAllowed = { { "period", limit.getPeriod() }, { "calendar", limit.getCalendar() },
				{ "zone", limit.getZone() }, { "penalty", limit.getPenalty() }, { "slices", limit.getSlices() },
				{ "local-threshold", limit.getLocalThreshold() }, { "failure-policy", limit.getFailurePolicy() },
				{ "shadow", limit.getShadow() } };
		for (Object[] given : notAllowed) {
			if (given[1] != null) {
				throw new InvalidConfigurationPropertyValueException(property + "." + given[0], given[1], "Remove "
						+ property + "." + given[0] + ": " + why + "; the threshold is the most it learns up to.");
			}
		}
		LimiterProperties.Adaptive adaptive = limit.getAdaptive();
		String strategy = adaptive.getStrategy();
		if (strategy == null || !List.of("gradient", "vegas", "aimd").contains(strategy)) {
			throw new InvalidConfigurationPropertyValueException(property + ".adaptive.strategy", strategy,
					"Set the strategy to gradient (the default), vegas or aimd.");
		}
		Integer min = adaptive.getMin();
		if (min == null || min < 1 || min > threshold) {
			throw new InvalidConfigurationPropertyValueException(property + ".adaptive.min", min,
					"Set the fewest calls in flight the limit learns down to between 1 and the threshold (" + threshold
							+ ").");
		}
		Integer initial = adaptive.getInitial();
		if (initial != null && (initial < min || initial > threshold)) {
			throw new InvalidConfigurationPropertyValueException(property + ".adaptive.initial", initial,
					"Set the calls in flight admitted before anything is learned between adaptive.min (" + min
							+ ") and the threshold (" + threshold + "), or leave it out for " + "min(20, threshold).");
		}
		limit.getPlans().forEach((plan, numbers) -> {
			String planProperty = property + ".plans." + plan;
			if (numbers.getThreshold() != null || numbers.getPeriod() != null) {
				throw new InvalidConfigurationPropertyValueException(
						planProperty + ((numbers.getThreshold() != null) ? ".threshold" : ".period"),
						(numbers.getThreshold() != null) ? numbers.getThreshold() : numbers.getPeriod(),
						"A plan of an adaptive limit takes a share of the number it learns: set " + planProperty
								+ ".share in (0, 1], such as 0.3.");
			}
			Double share = numbers.getShare();
			if (share == null || !(share > 0 && share <= 1)) {
				throw new InvalidConfigurationPropertyValueException(planProperty + ".share", share,
						"Set the part of the learned number this plan's calls may use, above 0 and at most 1, such "
								+ "as 0.3.");
			}
		});
	}

	static void validate(String name, LimiterProperties.NamedLimit limit) {
		String property = "limiter.limits." + name;
		if (limit.getAlgorithm() == Algorithm.ADAPTIVE) {
			validateAdaptive(name, limit);
			return;
		}
		limit.getPlans().forEach((plan, numbers) -> {
			if (numbers.getShare() != null) {
				throw new InvalidConfigurationPropertyValueException(property + ".plans." + plan + ".share",
						numbers.getShare(), "A share is a part of an adaptive limit's learned number: set " + property
								+ ".algorithm to adaptive, or give the plan a threshold instead.");
			}
		});
		try {
			if (limit.getThreshold() != null) {
				Limit.of(name, limit.getThreshold(), Limit.MIN_PERIOD);
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".threshold", limit.getThreshold(),
					ex.getMessage());
		}
		try {
			if (limit.getPeriod() != null) {
				Limit.of(name, 1, limit.getPeriod());
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".period", limit.getPeriod(),
					ex.getMessage());
		}
		try {
			if (limit.getLocalThreshold() != null) {
				Limit.of(name, 1, Limit.MIN_PERIOD).withLocalThreshold(limit.getLocalThreshold());
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".local-threshold",
					limit.getLocalThreshold(), ex.getMessage());
		}
		try {
			if (limit.getPenalty() != null) {
				Limit.of(name, 1, Limit.MIN_PERIOD)
					.withAlgorithm((limit.getAlgorithm() != null) ? limit.getAlgorithm() : Algorithm.SLIDING_LOG)
					.withPenalty(limit.getPenalty());
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".penalty", limit.getPenalty(),
					ex.getMessage());
		}
		try {
			if (limit.getSlices() != null) {
				Limit.of(name, 1, Limit.MIN_PERIOD).withSlices(limit.getSlices());
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".slices", limit.getSlices(),
					ex.getMessage());
		}
		limit.getPlans().forEach((plan, numbers) -> {
			String planProperty = property + ".plans." + plan;
			if (numbers.getThreshold() == null) {
				throw new InvalidConfigurationPropertyValueException(planProperty + ".threshold", null,
						"Give every plan a threshold (limit '" + name + "', plan '" + plan + "').");
			}
			try {
				Limit.of(name, numbers.getThreshold(), Limit.MIN_PERIOD);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(planProperty + ".threshold",
						numbers.getThreshold(), ex.getMessage());
			}
			try {
				if (numbers.getPeriod() != null) {
					Limit.of(name, 1, numbers.getPeriod());
				}
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(planProperty + ".period", numbers.getPeriod(),
						ex.getMessage());
			}
		});
		try {
			if (limit.getCalendar() != null) {
				LimitResolver.calendar(limit.getCalendar(), Spelling.PROPERTY);
			}
		}
		catch (InvalidLimitException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".calendar", limit.getCalendar(),
					ex.getMessage());
		}
		try {
			if (limit.getZone() != null) {
				LimitResolver.zone(limit.getZone(), Spelling.PROPERTY);
			}
		}
		catch (InvalidLimitException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".zone", limit.getZone(), ex.getMessage());
		}
		if (limit.getSlices() != null && limit.getAlgorithm() != null) {
			try {
				LimitResolver.checkSlices(limit.getAlgorithm(), limit.getSlices(), null, Spelling.PROPERTY);
			}
			catch (InvalidLimitException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".slices", limit.getSlices(),
						ex.getMessage());
			}
		}
	}

}
