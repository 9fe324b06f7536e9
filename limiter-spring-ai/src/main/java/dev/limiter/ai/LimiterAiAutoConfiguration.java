package dev.limiter.ai;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.call.SurfaceCalls;

/**
 * Auto-configuration of Limiter on Spring AI: with {@code limiter.ai.limit}, a budget of
 * tokens per user ({@link TokenBudgetAdvisor}) on every {@code ChatClient} built from
 * Boot's {@code ChatClient.Builder}.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass({ ChatClient.class, ChatClientBuilderCustomizer.class })
@ConditionalOnBean(SurfaceCalls.class)
@ConditionalOnProperty(prefix = "limiter.ai", name = "limit")
@EnableConfigurationProperties(LimiterAiProperties.class)
public final class LimiterAiAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TokenBudgetAdvisor limiterTokenBudgetAdvisor(SurfaceCalls calls, LimiterAiProperties properties,
			ObjectProvider<AiTokens> tokens) {
		return new TokenBudgetAdvisor(calls, properties, new JTokkitTokenCountEstimator(),
				tokens.getIfAvailable(() -> AiTokens.NONE));
	}

	@Bean
	ChatClientBuilderCustomizer limiterTokenBudget(TokenBudgetAdvisor advisor) {
		return (builder) -> builder.defaultAdvisors(advisor);
	}

	// Registers the budget once every bean exists: a limit that limiter.limits lacks
	// stops the start here.
	@Bean
	static SmartInitializingSingleton limiterAiStart(ObjectProvider<TokenBudgetAdvisor> advisor) {
		return () -> advisor.ifAvailable(TokenBudgetAdvisor::start);
	}

	/** The tokens counter, where Micrometer is. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		AiTokens limiterAiTokens(ObjectProvider<MeterRegistry> registry) {
			return new AiTokens(registry.getIfAvailable());
		}

	}

}
