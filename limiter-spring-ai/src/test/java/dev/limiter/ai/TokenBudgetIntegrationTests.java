package dev.limiter.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;

import dev.limiter.RateLimitExceededException;
import dev.limiter.actuate.RateLimitsEndpoint;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Token budgets over Spring AI's own OpenAI client, pointed at a fake OpenAI server on a
 * free loopback port: two instances on one real Redis, a user's budget of 1,000 tokens a
 * day held across both (the server's count of tokens served proves it), a refused call
 * never reaching the server, another user unaffected, streams settled by their last chunk
 * or, when cut, by what they streamed.
 */
class TokenBudgetIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static FakeOpenAi openAi;

	static final String PROMPT = "Say hello to the reader of this test";

	static final int MAX_TOKENS = 100;

	@BeforeAll
	static void start() throws Exception {
		openAi = new FakeOpenAi();
		for (int i = 0; i < 2; i++) {
			instances.add(start(openAi.baseUrl()));
		}
	}

	static ConfigurableApplicationContext start(String baseUrl, String... properties) {
		return new SpringApplicationBuilder(ChatApplication.class).web(WebApplicationType.NONE)
			.properties("spring.ai.openai.base-url=" + baseUrl, "spring.ai.openai.api-key=test",
					"spring.ai.openai.chat.model=gpt-fake", "spring.ai.openai.chat.max-tokens=" + MAX_TOKENS,
					"spring.ai.openai.max-retries=0", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "limiter.rejection-cache.enabled=false",
					"limiter.limits.ai-tokens.threshold=1000", "limiter.limits.ai-tokens.period=1d",
					"limiter.limits.ai-tokens.algorithm=sliding-buckets", "limiter.ai.limit=ai-tokens")
			.properties(properties)
			.run();
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
		openAi.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
		openAi.requests.set(0);
		openAi.tokensServed.set(0);
	}

	@AfterEach
	void nobody() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void aUsersDailyBudgetHoldsAcrossTwoInstancesAndARefusedCallNeverReachesTheModel() {
		long reservation = new JTokkitTokenCountEstimator().estimate(PROMPT) + MAX_TOKENS;
		// each call reserves its estimate and settles the 42 tokens the model reports:
		// the
		// last call admitted is the one whose reservation still fits what is left
		long expected = (1000 - reservation) / FakeOpenAi.TOTAL_TOKENS + 1;
		as("alice");
		int answered = 0;
		RateLimitExceededException refusal = null;
		for (int i = 0; i < 40 && refusal == null; i++) {
			try {
				assertThat(chat(instances.get(i % 2))).isEqualTo("Hello there");
				answered++;
			}
			catch (RateLimitExceededException ex) {
				refusal = ex;
			}
		}
		assertThat(answered).isEqualTo(expected);
		assertThat(refusal).isNotNull();
		assertThat(refusal.getDecision().retryAfterSeconds()).isPositive();
		assertThat(openAi.requests).as("requests that reached the model").hasValue(answered);
		assertThat(openAi.tokensServed.get()).isEqualTo(answered * (long) FakeOpenAi.TOTAL_TOKENS)
			.isLessThanOrEqualTo(1000);
		Map<String, Object> usage = instances.get(0)
			.getBean(RateLimitsEndpoint.class)
			.usage("ai-tokens", "u:alice")
			.getBody();
		assertThat(usage.toString()).contains("remaining=" + (1000 - openAi.tokensServed.get()));

		as("bob");
		assertThat(chat(instances.get(1))).as("another user").isEqualTo("Hello there");
	}

	@Test
	void aStreamSettlesTheUsageOfItsLastChunkAndAStreamCutMidwaySettlesWhatItStreamed() {
		as("carol");
		ChatClient client = instances.get(0).getBean(ChatClient.Builder.class).build();
		List<String> whole = client.prompt()
			.user(PROMPT)
			.stream()
			.content()
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(String.join("", whole)).isEqualTo("Hello there");
		RateLimitsEndpoint endpoint = instances.get(1).getBean(RateLimitsEndpoint.class);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(endpoint.usage("ai-tokens", "u:carol").getBody().toString())
				.contains("remaining=" + (1000 - FakeOpenAi.TOTAL_TOKENS)));

		List<String> cut = client.prompt()
			.user(PROMPT)
			.stream()
			.content()
			.take(2)
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(String.join("", cut)).isEqualTo("Hello");
		JTokkitTokenCountEstimator tokens = new JTokkitTokenCountEstimator();
		long generated = tokens.estimate(PROMPT) + tokens.estimate("Hello");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(endpoint.usage("ai-tokens", "u:carol").getBody().toString())
				.contains("remaining=" + (1000 - FakeOpenAi.TOTAL_TOKENS - generated)));
	}

	@Test
	void aStreamOnWebFluxCountsUnderThePrincipalOfItsSubscribersContext() {
		// as a WebFlux handler returning the stream: Spring Security's principal is in
		// the
		// subscriber's reactive context, not on any thread
		SecurityContextHolder.clearContext();
		List<String> whole = instances.get(0)
			.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(PROMPT)
			.stream()
			.content()
			.contextWrite(ReactiveSecurityContextHolder
				.withAuthentication(new TestingAuthenticationToken("erin", null, "ROLE_USER")))
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(String.join("", whole)).isEqualTo("Hello there");
		RateLimitsEndpoint endpoint = instances.get(1).getBean(RateLimitsEndpoint.class);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(endpoint.usage("ai-tokens", "u:erin").getBody().toString())
				.contains("remaining=" + (1000 - FakeOpenAi.TOTAL_TOKENS)));
		assertThat(endpoint.usage("ai-tokens", "all").getBody().toString()).contains("remaining=1000");
	}

	@Test
	void aCallNamesItsUserInTheAdvisorContext() {
		SecurityContextHolder.clearContext();
		String answer = instances.get(0)
			.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user(PROMPT)
			.advisors((advisor) -> advisor.param(TokenBudgetAdvisor.CALLER, "frank"))
			.call()
			.content();
		assertThat(answer).isEqualTo("Hello there");
		assertThat(
				instances.get(1).getBean(RateLimitsEndpoint.class).usage("ai-tokens", "u:frank").getBody().toString())
			.contains("remaining=" + (1000 - FakeOpenAi.TOTAL_TOKENS));
	}

	@Test
	void tokensAreCountedPerLimitAndModelNeverPerUser() {
		as("dave");
		MeterRegistry meters = instances.get(0).getBean(MeterRegistry.class);
		double before = settled(meters);
		chat(instances.get(0));
		assertThat(settled(meters) - before).isEqualTo(FakeOpenAi.TOTAL_TOKENS);
		assertThat(meters.find(AiTokens.METER).meters()).allSatisfy(
				(meter) -> assertThat(meter.getId().getTags()).noneMatch((tag) -> tag.getValue().contains("dave")));
	}

	private static double settled(MeterRegistry meters) {
		io.micrometer.core.instrument.Counter counter = meters.find(AiTokens.METER)
			.tag("limit", "ai-tokens")
			.tag("model", "gpt-fake")
			.tag("outcome", "settled")
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static String chat(ConfigurableApplicationContext instance) {
		return instance.getBean(ChatClient.Builder.class).build().prompt().user(PROMPT).call().content();
	}

	private static void as(String user) {
		SecurityContextHolder.getContext().setAuthentication(new TestingAuthenticationToken(user, null, "ROLE_USER"));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChatApplication {

	}

}
