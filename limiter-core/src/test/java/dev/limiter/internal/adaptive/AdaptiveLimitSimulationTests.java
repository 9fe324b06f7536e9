package dev.limiter.internal.adaptive;

import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each strategy in front of a simulated backend of 20 servers and 10 ms calls (2,000
 * calls a second), offered twice that: the admitted calls' p99 stays within twice the
 * unloaded p99 while at least 90% of the capacity is served, and when half the servers
 * go, the limit follows within 10 s.
 */
class AdaptiveLimitSimulationTests {

	private static final int SERVERS = 20;

	private static final long SERVICE_MILLIS = 10;

	private static final long TIMEOUT_MILLIS = 100;

	private static final double CAPACITY = SERVERS * 1000.0 / SERVICE_MILLIS;

	@ParameterizedTest
	@ValueSource(strings = { "gradient", "vegas" })
	void atTwiceTheCapacityTheAdmittedCallsStayQuickAndTheBackendBusy(String strategy) {
		double unloaded = new BackendSimulation(1, SERVERS, SERVICE_MILLIS, TIMEOUT_MILLIS)
			.run(null, CAPACITY / 2, 20, -1, 0)
			.p99Millis(5, 20);
		BackendSimulation.Run unlimited = new BackendSimulation(2, SERVERS, SERVICE_MILLIS, TIMEOUT_MILLIS).run(null,
				CAPACITY * 2, 20, -1, 0);
		BackendSimulation backend = new BackendSimulation(3, SERVERS, SERVICE_MILLIS, TIMEOUT_MILLIS);
		AdaptiveLimit limit = new AdaptiveLimit(AdaptiveStrategy.of(strategy), 20, 2, 200, backend.clock());
		BackendSimulation.Run run = backend.run(limit, CAPACITY * 2, 60, 30, SERVERS / 2);
		System.out.printf(
				"%s: unloaded p99 %.1f ms; unlimited p99 %.1f ms; at 2x p99 %.1f ms, goodput %.0f%%; after halving p99 %.1f ms, goodput %.0f%%; limits %s%n",
				strategy, unloaded, unlimited.p99Millis(5, 20), run.p99Millis(10, 30),
				100 * run.goodput(10, 30) / CAPACITY, run.p99Millis(40, 60), 100 * run.goodput(40, 60) / (CAPACITY / 2),
				Arrays.toString(run.limits()));
		assertThat(unlimited.p99Millis(5, 20)).isGreaterThan(5 * unloaded);
		assertThat(run.p99Millis(10, 30)).isLessThanOrEqualTo(2 * unloaded);
		assertThat(run.goodput(10, 30)).isGreaterThanOrEqualTo(0.9 * CAPACITY);
		assertThat(run.p99Millis(40, 60)).isLessThanOrEqualTo(2 * unloaded);
		assertThat(run.goodput(40, 60)).isGreaterThanOrEqualTo(0.9 * CAPACITY / 2);
	}

	// AIMD learns from drops only: in front of a backend that refuses (503) what it
	// cannot queue, it sends what the backend takes.
	@ParameterizedTest
	@ValueSource(strings = { "aimd", "gradient", "vegas" })
	void inFrontOfABackendThatRefusesWhatItCannotQueueFewCallsAreRefused(String strategy) {
		BackendSimulation.Run unlimited = new BackendSimulation(2, SERVERS, SERVICE_MILLIS, TIMEOUT_MILLIS, SERVERS)
			.run(null, CAPACITY * 2, 20, -1, 0);
		BackendSimulation backend = new BackendSimulation(3, SERVERS, SERVICE_MILLIS, TIMEOUT_MILLIS, SERVERS);
		AdaptiveLimit limit = new AdaptiveLimit(AdaptiveStrategy.of(strategy), 20, 2, 200, backend.clock());
		BackendSimulation.Run run = backend.run(limit, CAPACITY * 2, 60, 30, SERVERS / 2);
		System.out.printf(
				"%s, refusing backend: unlimited refused %d, at 2x refused %d, goodput %.0f%%; "
						+ "after halving refused %d, goodput %.0f%%; limits %s%n",
				strategy, unlimited.refusedByBackend(10, 20), run.refusedByBackend(10, 20),
				100 * run.goodput(10, 30) / CAPACITY, run.refusedByBackend(40, 50),
				100 * run.goodput(40, 60) / (CAPACITY / 2), Arrays.toString(run.limits()));
		assertThat(run.goodput(10, 30)).isGreaterThanOrEqualTo(0.9 * CAPACITY);
		assertThat(run.goodput(40, 60)).isGreaterThanOrEqualTo(0.9 * CAPACITY / 2);
		// the unlimited client has half its calls refused; the limited one at most 5%
		assertThat(run.refusedByBackend(10, 20)).isLessThanOrEqualTo(unlimited.refusedByBackend(10, 20) / 10);
		assertThat(run.refusedByBackend(40, 50)).isLessThanOrEqualTo(unlimited.refusedByBackend(10, 20) / 20);
	}

}
