package dev.limiter.ai;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.CostExceedsLimitException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Bad settings of the budget stop the start naming what to fix; a call that no budget can
 * hold fails naming its numbers.
 */
class TokenBudgetStartupIntegrationTests {

	@Test
	void aBudgetNamingAnUndefinedLimitStopsTheStart() {
		assertThatException().isThrownBy(
				() -> TokenBudgetIntegrationTests.start("http://127.0.0.1:9/v1", "limiter.ai.limit=ai-tokns").close())
			.withStackTraceContaining("limiter.ai.limit: limiter.limits.ai-tokns: the limit 'ai-tokns' is not defined");
	}

	@Test
	void aBudgetOnALimitThatCannotBeChargedStopsTheStartNamingTheAlgorithmsThatCan() {
		// the default algorithm, the sliding log, keeps an entry per token and cannot
		// settle a call's usage after it
		assertThatException()
			.isThrownBy(() -> TokenBudgetIntegrationTests
				.start("http://127.0.0.1:9/v1", "limiter.limits.ai-tokens.algorithm=sliding-log")
				.close())
			.withStackTraceContaining("limiter.ai.limit, whose calls are settled with the tokens they used, is given "
					+ "to the sliding-log limit 'ai-tokens'")
			.withStackTraceContaining("Set limiter.limits.ai-tokens.algorithm to sliding-buckets or token-bucket");
		assertThatException()
			.isThrownBy(() -> TokenBudgetIntegrationTests
				.start("http://127.0.0.1:9/v1", "limiter.limits.ai-tokens.algorithm=in-flight")
				.close())
			.withStackTraceContaining("is given to the in-flight limit 'ai-tokens'");
	}

	@Test
	void aCompletionBoundThatIsNoNumberOfTokensStopsTheStart() {
		assertThatException()
			.isThrownBy(() -> TokenBudgetIntegrationTests
				.start("http://127.0.0.1:9/v1", "limiter.ai.max-completion-tokens=0")
				.close())
			.withStackTraceContaining("limiter.ai.max-completion-tokens is 0");
	}

	@Test
	void aCallReservingMoreThanTheWholeBudgetFailsNamingItsNumbersWithoutReachingTheModel() throws Exception {
		try (FakeOpenAi openAi = new FakeOpenAi();
				ConfigurableApplicationContext app = TokenBudgetIntegrationTests.start(openAi.baseUrl(),
						"spring.ai.openai.chat.max-tokens=5000")) {
			assertThatExceptionOfType(CostExceedsLimitException.class)
				.isThrownBy(() -> app.getBean(ChatClient.Builder.class).build().prompt().user("hi").call().content())
				.withMessageContaining("costs 5001 tokens")
				.withMessageContaining("more than the 1000 that limit 'ai-tokens' holds in all")
				.satisfies((ex) -> assertThat(ex.getCost()).isEqualTo(5001));
			assertThat(openAi.requests).hasValue(0);
		}
	}

}
