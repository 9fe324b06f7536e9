package dev.limiter.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import reactor.blockhound.BlockHound;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.internal.actuate.ClientMetrics;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The provider's own quotas over Spring AI's OpenAI client, pointed at a fake OpenAI
 * server that keeps a quota of tokens as OpenAI does and answers 429 beyond it: two
 * instances on one real Redis keep it together with no 429, each answer charged its usage
 * (a stream's, its last chunk's), and what the provider's headers say of its quota holds
 * every instance.
 */
class ProviderQuotaIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final String PROMPT = "Say hello to the reader of this test";

	private static final int MAX_TOKENS = 40;

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private FakeOpenAi openAi;

	@BeforeEach
	void start() throws Exception {
		redis.flushAll();
		this.openAi = new FakeOpenAi();
	}

	@AfterEach
	void stop() {
		this.instances.forEach(ConfigurableApplicationContext::close);
		this.openAi.close();
	}

	@BeforeAll
	static void noBlockingOnNonBlockingThreads() {
		BlockHound.install();
	}

	private ConfigurableApplicationContext instance(long tokens, String period) {
		ConfigurableApplicationContext instance = new SpringApplicationBuilder(ChatApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.ai.openai.base-url=" + this.openAi.baseUrl(), "spring.ai.openai.api-key=test",
					"spring.ai.openai.chat.model=gpt-fake", "spring.ai.openai.chat.max-tokens=" + MAX_TOKENS,
					"spring.ai.openai.max-retries=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.clients.openai.hosts=127.0.0.1",
					"limiter.clients.openai.threshold=1000", "limiter.clients.openai.period=" + period,
					"limiter.clients.openai.tokens=" + tokens, "limiter.clients.openai.max-wait=30s")
			.run();
		this.instances.add(instance);
		return instance;
	}

	@Test
	void theProvidersTokensPerWindowHoldAcrossTwoInstancesWithNo429() throws Exception {
		this.openAi.quota(420, Duration.ofSeconds(2));
		List<ConfigurableApplicationContext> both = List.of(instance(420, "2s"), instance(420, "2s"));
		ExecutorService callers = Executors.newFixedThreadPool(8);
		try {
			List<Future<String>> answers = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				ConfigurableApplicationContext instance = both.get(i % 2);
				answers.add(callers.submit((Callable<String>) () -> chat(instance)));
			}
			for (Future<String> answer : answers) {
				assertThat(answer.get()).isEqualTo("Hello there");
			}
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(this.openAi.rejected).as("requests the provider refused").hasValue(0);
		assertThat(this.openAi.tokensServed.get()).as("four times the window's quota, served in turn")
			.isEqualTo(40L * FakeOpenAi.TOTAL_TOKENS);
	}

	@Test
	void eachAnswerIsChargedItsUsageAndAStreamItsLastChunksAfterWaitingOffTheEventLoop() {
		ConfigurableApplicationContext instance = instance(1_000, "1d");
		OutgoingQuota quota = instance.getBean(OutgoingQuotas.class).forHost("127.0.0.1");
		RateLimiter limiter = instance.getBean(OutgoingQuotas.class).rateLimiter();
		assertThat(chat(instance)).isEqualTo("Hello there");
		assertThat(used(limiter, quota)).as("the reservation settled to the answer's usage")
			.isEqualTo(FakeOpenAi.TOTAL_TOKENS);
		// held by the provider: the stream's request waits, on OkHttp's thread
		instance.getBean(OutgoingQuotas.class).hold(quota, Duration.ofMillis(800), "the test");
		Timer waits = instance.getBean(MeterRegistry.class).get(ClientMetrics.WAITS).tag("client", "openai").timer();
		List<String> streamed = instance.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(PROMPT)
			.stream()
			.content()
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(String.join("", streamed)).isEqualTo("Hello there");
		assertThat(waits.count()).as("the stream's request waited out the hold, as Limiter counts its waits")
			.isPositive();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(used(limiter, quota)).isEqualTo(2L * FakeOpenAi.TOTAL_TOKENS));
	}

	@Test
	void aRequestThatMayUseMoreTokensThanTheWholeQuotaIsNotSent() {
		ConfigurableApplicationContext instance = instance(30, "1m");
		long estimate = new JTokkitTokenCountEstimator().estimate(PROMPT + "\n") + MAX_TOKENS;
		assertThatExceptionOfType(CostExceedsLimitException.class).isThrownBy(() -> chat(instance))
			.withMessageContaining("may use " + estimate + " tokens, more than the 30 per 1m")
			.withMessageContaining("limiter.clients.openai.tokens");
		assertThat(this.openAi.requests).hasValue(0);
	}

	@Test
	void whatTheProviderSaysOfItsTokensHoldsEveryInstance() {
		// the provider has far fewer tokens than the instances were told: its headers
		// correct them
		this.openAi.quota(84, Duration.ofSeconds(4));
		ConfigurableApplicationContext first = instance(100_000, "4s");
		ConfigurableApplicationContext second = instance(100_000, "4s");
		assertThat(chat(first)).isEqualTo("Hello there");
		assertThat(chat(first)).as("the last of the provider's tokens").isEqualTo("Hello there");
		OutgoingQuota told = second.getBean(OutgoingQuotas.class).forHost("127.0.0.1");
		await().atMost(Duration.ofSeconds(1)).until(() -> told.heldFor() > 0);
		assertThat(chat(second)).as("waits out the provider's reset").isEqualTo("Hello there");
		assertThat(this.openAi.rejected).as("requests the provider refused").hasValue(0);
		assertThat(this.openAi.requests).hasValue(3);
	}

	private static long used(RateLimiter limiter, OutgoingQuota quota) {
		Usage usage = limiter.usage(quota.tokensKey(), List.of(quota.tokens())).get(0);
		return quota.tokens().threshold() - usage.remaining();
	}

	private static String chat(ConfigurableApplicationContext instance) {
		return instance.getBean(ChatClient.Builder.class).build().prompt().user(PROMPT).call().content();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChatApplication {

	}

}
