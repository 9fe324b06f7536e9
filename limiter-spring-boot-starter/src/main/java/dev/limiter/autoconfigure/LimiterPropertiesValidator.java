package dev.limiter.autoconfigure;

import java.time.Duration;

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

	static void validate(String name, LimiterProperties.NamedLimit limit) {
		String property = "limiter.limits." + name;
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
