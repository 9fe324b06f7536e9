package dev.limiter.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.call.RuleCalls;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitOverrides.NamedOverride;
import dev.limiter.internal.limits.LimitOverrides.Numbers;
import dev.limiter.internal.limits.LimitResolver;

/**
 * Applies {@code limiter.limits.*} when they change in the {@link Environment} at run
 * time, as Spring Cloud announces it ({@code /actuator/refresh}, Spring Cloud Config, a
 * Kubernetes ConfigMap reload): the new thresholds and periods, of the limits and of
 * their plans, apply without a restart, checked as at startup. A bad value is refused
 * with one line that names the property, and the numbers in force stay. What else a named
 * limit says (its algorithm, slices, failure policy, shadow mode) takes a restart.
 */
final class LimitsRefresh implements ApplicationListener<EnvironmentChangeEvent> {

	private static final Logger logger = LoggerFactory.getLogger(LimitsRefresh.class);

	private static final String PREFIX = "limiter.limits";

	private final Environment environment;

	private final LimitResolver limitResolver;

	private static final String RULES = "limiter.web.rules";

	private final ObjectProvider<RateLimitOperationSource> operations;

	private final ObjectProvider<RuleCalls> rules;

	LimitsRefresh(Environment environment, LimitResolver limitResolver,
			ObjectProvider<RateLimitOperationSource> operations, ObjectProvider<RuleCalls> rules) {
		this.environment = environment;
		this.limitResolver = limitResolver;
		this.operations = operations;
		this.rules = rules;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		if (event.getKeys().stream().anyMatch((key) -> key.startsWith(RULES))) {
			refreshRules();
		}
		if (event.getKeys().stream().noneMatch((key) -> key.startsWith(PREFIX + "."))) {
			return;
		}
		Map<String, NamedOverride> refreshed;
		try {
			Map<String, LimiterProperties.NamedLimit> limits = Binder.get(this.environment)
				.bind(PREFIX, Bindable.mapOf(String.class, LimiterProperties.NamedLimit.class))
				.orElse(Map.of());
			limits.forEach(LimiterPropertiesValidator::validate);
			refreshed = changes(limits);
			RateLimitOperationSource operations = this.operations.getIfAvailable();
			refreshed.forEach((name, numbers) -> {
				try {
					if (operations != null) {
						operations.checkNumbers(name, numbers.numbers(), numbers.plans());
					}
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException(PREFIX + "." + name + "." + ex.getMessage(), ex);
				}
			});
		}
		catch (BindException ex) {
			logger.warn("Limiter keeps the limits in force: the refreshed {} cannot be read ({})", ex.getName(),
					rootMessage(ex));
			return;
		}
		catch (InvalidConfigurationPropertyValueException ex) {
			logger.warn("Limiter keeps the limits in force: the refreshed {} is refused: {}", ex.getName(),
					ex.getReason());
			return;
		}
		catch (IllegalArgumentException ex) {
			logger.warn("Limiter keeps the limits in force: the refreshed {}", ex.getMessage());
			return;
		}
		if (!refreshed.equals(this.limitResolver.overrides().configured())) {
			this.limitResolver.overrides().replaceConfigured(refreshed);
			logger.info("Limiter applies the refreshed limiter.limits: {}",
					refreshed.isEmpty() ? "the numbers it started with" : refreshed);
		}
	}

	/**
	 * Apply the rules by path as they now stand: every rule replaced, or, when one is
	 * bad, none, with one line naming the property.
	 */
	private void refreshRules() {
		RuleCalls calls = this.rules.getIfAvailable();
		if (calls == null) {
			return;
		}
		try {
			List<LimiterProperties.Rule> refreshed = Binder.get(this.environment)
				.bind(RULES, Bindable.listOf(LimiterProperties.Rule.class))
				.orElse(List.of());
			calls.configure(LimiterAutoConfiguration.ruleSettings(refreshed));
			logger.info("Limiter applies the refreshed {}: {} rule{}", RULES, refreshed.size(),
					(refreshed.size() == 1) ? "" : "s");
		}
		catch (BindException ex) {
			logger.warn("Limiter keeps the rules in force: the refreshed {} cannot be read ({})", ex.getName(),
					rootMessage(ex));
		}
		catch (IllegalArgumentException ex) {
			logger.warn("Limiter keeps the rules in force: the refreshed {}", ex.getMessage());
		}
	}

	/**
	 * Return, per named limit the application started with, the numbers that differ from
	 * those it started with; what takes a restart is logged.
	 */
	private Map<String, NamedOverride> changes(Map<String, LimiterProperties.NamedLimit> limits) {
		Map<String, NamedOverride> changes = new LinkedHashMap<>();
		List<String> needRestart = new ArrayList<>();
		limits.forEach((name, limit) -> {
			LimitAttributes started = this.limitResolver.named().get(name);
			if (started == null) {
				needRestart.add(PREFIX + "." + name);
				return;
			}
			if (!Objects.equals(limit.getAlgorithm(), started.algorithm())
					|| !Objects.equals(limit.getSlices(), started.slices())
					|| !Objects.equals(limit.getFailurePolicy(), started.failurePolicy())
					|| !Objects.equals(limit.getShadow(), started.shadow())
					|| !Objects.equals(limit.getLocalThreshold(), started.localThreshold())
					|| !Objects.equals(blankless(limit.getCalendar()), started.calendar())
					|| !Objects.equals(blankless(limit.getZone()), started.zone())) {
				needRestart.add(PREFIX + "." + name + " (beyond its threshold and period)");
			}
			Numbers numbers = new Numbers(differing(limit.getThreshold(), started.threshold()),
					differing(limit.getPeriod(), started.period()));
			Map<String, Numbers> plans = new LinkedHashMap<>();
			limit.getPlans().forEach((plan, planned) -> {
				LimitAttributes.Plan startedPlan = started.plans().get(plan);
				Numbers planNumbers = (startedPlan != null)
						? new Numbers(differing(planned.getThreshold(), startedPlan.threshold()),
								differing(planned.getPeriod(), startedPlan.period()))
						: new Numbers(planned.getThreshold(), planned.getPeriod());
				if (!planNumbers.isEmpty()) {
					plans.put(plan, planNumbers);
				}
			});
			NamedOverride change = new NamedOverride(numbers, plans);
			if (!change.isEmpty()) {
				changes.put(name, change);
			}
		});
		if (!needRestart.isEmpty()) {
			logger.warn("Limiter applies refreshed thresholds and periods only; {} take effect after a restart",
					needRestart);
		}
		return changes;
	}

	private static String rootMessage(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause.getMessage();
	}

	private static <T> T differing(T refreshed, T started) {
		return (refreshed != null && !refreshed.equals(started)) ? refreshed : null;
	}

	private static String blankless(String text) {
		return (text != null && !text.isBlank()) ? text.trim() : null;
	}

}
