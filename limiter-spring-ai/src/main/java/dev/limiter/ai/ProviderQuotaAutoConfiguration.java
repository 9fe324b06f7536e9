package dev.limiter.ai;

import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Auto-configuration of the provider's quotas on Spring AI's OpenAI client: with
 * {@code limiter.clients.<name>} naming the provider's host, its requests (and, with
 * {@code tokens}, their tokens) are counted by every instance together.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		beforeName = "org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration")
@ConditionalOnClass({ OpenAiHttpClientBuilderCustomizer.class, JTokkitTokenCountEstimator.class })
@ConditionalOnBean(OutgoingQuotas.class)
@EnableConfigurationProperties(LimiterAiProperties.class)
public final class ProviderQuotaAutoConfiguration {

	@Bean
	OpenAiHttpClientBuilderCustomizer limiterProviderQuota(OutgoingQuotas quotas, LimiterAiProperties properties) {
		ProviderQuotaInterceptor interceptor = new ProviderQuotaInterceptor(quotas, new JTokkitTokenCountEstimator(),
				properties.getMaxCompletionTokens());
		return (builder) -> builder.interceptor(interceptor);
	}

}
