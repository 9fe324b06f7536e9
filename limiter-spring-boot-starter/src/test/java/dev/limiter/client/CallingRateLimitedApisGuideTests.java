package dev.limiter.client;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import dev.limiter.Algorithm;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The YAML of the guide's "Calling rate-limited APIs", read from the guide as written and
 * started: each upstream gets its quota, its hosts and its wait, and both clients' beans
 * are there.
 */
class CallingRateLimitedApisGuideTests {

	@Test
	void theGuidesTwoUpstreamsStartAsWritten() throws Exception {
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		String section = guide.substring(guide.indexOf("## Calling rate-limited APIs"));
		String yaml = section.substring(section.indexOf("```yaml") + 7,
				section.indexOf("```", section.indexOf("```yaml") + 7));
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("guide",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterClientsAutoConfiguration.class))
			.withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(RateLimitClientHttpRequestInterceptor.class)
					.hasSingleBean(RateLimitExchangeFilterFunction.class);
				OutgoingQuotas quotas = context.getBean(OutgoingQuotas.class);
				OutgoingQuota github = quotas.forHost("api.github.com");
				assertThat(github.name()).isEqualTo("github");
				assertThat(github.limit().threshold()).isEqualTo(5_000);
				assertThat(github.limit().algorithm()).isEqualTo(Algorithm.SLIDING_BUCKETS);
				assertThat(github.maxWait()).isEqualTo(Duration.ofSeconds(30));
				OutgoingQuota payments = quotas.forHost("api.eu.payments.example");
				assertThat(payments).isSameAs(quotas.forHost("API.payments.example"));
				assertThat(payments.limit().threshold()).isEqualTo(100);
				assertThat(payments.limit().period()).as("1s paced over 2% more").isEqualTo(Duration.ofMillis(1_020));
				assertThat(payments.maxWait()).isEqualTo(Duration.ofSeconds(5));
				assertThat(quotas.forHost("example.org")).isNull();
			});
	}

}
