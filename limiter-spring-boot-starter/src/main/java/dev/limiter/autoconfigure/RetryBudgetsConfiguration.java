package dev.limiter.autoconfigure;

import java.util.Map;
import java.util.Set;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import dev.limiter.internal.retry.RedisRetryBudgets;
import dev.limiter.internal.retry.RetryBudgetAbort;
import dev.limiter.internal.retry.RetryBudgetAccount;
import dev.limiter.internal.retry.RetryBudgetAdvisor;
import dev.limiter.internal.retry.RetryBudgetStore;
import dev.limiter.internal.retry.SharedRetryBudgets;
import dev.limiter.internal.store.LimiterRedisConnection;

/**
 * Configuration of the retry budgets of {@code limiter.retry-budgets}: the
 * {@link dev.limiter.retry.RetryBudgets} bean and
 * {@link dev.limiter.retry.RetryBudget @RetryBudget}, on Spring Framework 7's retry
 * support (Spring Boot 4). The budgets are counted in Redis when the limiter stores its
 * limits there, otherwise by each instance alone.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.core.retry.RetryTemplate")
class RetryBudgetsConfiguration {

	@Bean
	SharedRetryBudgets retryBudgets(LimiterProperties properties, ObjectProvider<LimiterRedisConnection> connection) {
		LimiterRedisConnection redis = connection.getIfAvailable();
		RetryBudgetStore store = (redis != null) ? new RedisRetryBudgets(redis.getConnectionFactory(),
				properties.getKeyPrefix(),
				(properties.getClock() == LimiterProperties.ClockSource.CLIENT) ? System::currentTimeMillis : null)
				: null;
		return new SharedRetryBudgets(properties.getRetryBudgets()
			.entrySet()
			.stream()
			.map((budget) -> new RetryBudgetStore.BudgetSettings(budget.getKey(), budget.getValue().getRatio(),
					budget.getValue().getMinPerSecond()))
			.toList(), store, System::currentTimeMillis);
	}

	// Names are read from the environment, not from the properties bean: advisors are
	// asked for while post-processors are still being created.
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RetryBudgetAdvisor retryBudgetAdvisor(Environment environment, ObjectProvider<SharedRetryBudgets> budgets) {
		return new RetryBudgetAdvisor(() -> budgetNames(environment), () -> budgets.getObject()::account);
	}

	private static Set<String> budgetNames(Environment environment) {
		return Binder.get(environment)
			.bind("limiter.retry-budgets", Bindable.mapOf(String.class, LimiterProperties.RetryBudgetSettings.class))
			.map(Map::keySet)
			.orElse(Set.of());
	}

	@Bean
	@ConditionalOnClass(name = "org.springframework.resilience.retry.MethodRetryEvent")
	static RetryBudgetAbort retryBudgetAbort() {
		return new RetryBudgetAbort();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MetricsConfiguration {

		// limiter.retry.budget{budget, outcome}: the retries each budget allowed and
		// denied on this instance.
		@Bean
		static SmartInitializingSingleton limiterRetryBudgetMetrics(ObjectProvider<MeterRegistry> registry,
				ObjectProvider<SharedRetryBudgets> budgets) {
			return () -> registry.ifAvailable((meters) -> budgets.ifAvailable((all) -> {
				for (RetryBudgetAccount account : all.accounts()) {
					String name = account.settings().name();
					FunctionCounter.builder("limiter.retry.budget", account, RetryBudgetAccount::allowed)
						.description("Retries a retry budget allowed or denied on this instance")
						.tags("budget", name, "outcome", "allowed")
						.register(meters);
					FunctionCounter.builder("limiter.retry.budget", account, RetryBudgetAccount::denied)
						.description("Retries a retry budget allowed or denied on this instance")
						.tags("budget", name, "outcome", "denied")
						.register(meters);
				}
			}));
		}

	}

}
