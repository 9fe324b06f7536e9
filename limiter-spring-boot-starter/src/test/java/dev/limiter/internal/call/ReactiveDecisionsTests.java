package dev.limiter.internal.call;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Reactor Netty gets answers known at once from Reactor's parallel threads: the
 * versions before 1.3.8, which stall a kept-alive connection on them
 * (reactor-netty#4361), and one that does not say its version.
 */
class ReactiveDecisionsTests {

	@Test
	void reactorNettyBefore138LeavesTheThreadThatAsked() {
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.3.7")).isTrue();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.2.18")).isTrue();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.1.30")).isTrue();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce(null)).as("a jar that does not say").isTrue();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("custom")).isTrue();
	}

	@Test
	void reactorNetty138AndLaterOrAnotherServerAnswerAtOnce() {
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.3.8")).isFalse();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.3.10")).isFalse();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("1.4.0-M1")).isFalse();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("2.0.0")).isFalse();
		assertThat(ReactiveDecisions.stallsOnAnswersAtOnce("")).as("no Reactor Netty").isFalse();
	}

}
