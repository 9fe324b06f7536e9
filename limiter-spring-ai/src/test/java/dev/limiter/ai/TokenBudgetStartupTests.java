package dev.limiter.ai;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Bad settings of the budget stop the start naming what to fix; a call that no budget can
 * hold fails naming its numbers.
 */
class TokenBudgetStartupTests {

	@Test
	void aBudgetNamingAnUndefinedLimitStopsTheStart() {
		assertThatException().isThrownBy(
				() -> TokenBudgetIntegrationTests.start("http://127.0.0.1:9/v1", "limiter.ai.limit=ai-tokns").close())
			.withStackTraceContaining("limiter.ai.limit: limiter.limits.ai-tokns: the limit 'ai-tokns' is not defined");
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
			assertThatIllegalStateException()
				.isThrownBy(() -> app.getBean(ChatClient.Builder.class).build().prompt().user("hi").call().content())
				.withMessageContaining("reserves 5001 tokens")
				.withMessageContaining("more than the whole budget of 1000 under 'ai-tokens'");
			assertThat(openAi.requests).hasValue(0);
		}
	}

}
