package dev.limiter.internal.adaptive;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Each strategy's moves on the windows a simulated overload and a halving of the backend
 * recorded, checked one by one against what the strategy promises: which way the limit
 * goes for that window, given the round trips seen before it.
 */
class AdaptiveStrategyTests {

	private static final double EPSILON = 1e-9;

	@ParameterizedTest
	@ValueSource(strings = { "gradient", "vegas", "aimd" })
	void everyMoveOnARecordedRunIsTheOnePromised(String name) {
		Recording recording = new Recording(AdaptiveStrategy.of(name));
		BackendSimulation backend = new BackendSimulation(7, 20, 10, 100, 20);
		AdaptiveLimit limit = new AdaptiveLimit(recording, 20, 2, 200, backend.clock());
		backend.run(limit, 4000, 40, 20, 10);
		assertThat(recording.moves).hasSizeGreaterThan(300);
		Oracle oracle = new Oracle(name);
		for (Move move : recording.moves) {
			int expected = oracle.direction(move.limit, move.sample);
			double delta = move.next - move.limit;
			int actual = (Math.abs(delta) < EPSILON) ? 0 : (int) Math.signum(delta);
			assertThat(actual).as("%s at limit %.2f after %s", name, move.limit, move.sample).isEqualTo(expected);
		}
	}

	@Test
	void aimdCutsATenthOnADropAndAddsOneWhenUsed() {
		AdaptiveStrategy aimd = AdaptiveStrategy.of("aimd");
		assertThat(aimd.next(20, sample(10, 10, false))).isEqualTo(21);
		assertThat(aimd.next(20, sample(10, 9, false))).isEqualTo(20);
		assertThat(aimd.next(20, sample(10, 20, true))).isEqualTo(18);
	}

	@Test
	void aLimitStaysBetweenItsMinimumAndMaximum() {
		long[] now = { 0 };
		AdaptiveLimit limit = new AdaptiveLimit(AdaptiveStrategy.of("aimd"), 3, 2, 4, () -> now[0]);
		for (int i = 0; i < 50; i++) {
			AdaptiveLimit.Permit permit = limit.tryAcquire(null);
			now[0] += 1_000_000;
			permit.end(true);
		}
		assertThat(limit.limit()).isEqualTo(2);
		for (int i = 0; i < 2_000; i++) {
			AdaptiveLimit.Permit first = limit.tryAcquire(null);
			AdaptiveLimit.Permit second = limit.tryAcquire(null);
			now[0] += 20_000_000;
			first.end(false);
			if (second != null) {
				second.end(false);
			}
		}
		assertThat(limit.limit()).isEqualTo(4);
	}

	@Test
	void aShareCapsItsClassAtItsPartOfTheLimit() {
		AdaptiveLimit limit = new AdaptiveLimit(AdaptiveStrategy.of("gradient"), 10, 2, 10, () -> 0);
		AdaptiveLimit.Share batch = new AdaptiveLimit.Share(0.3);
		List<AdaptiveLimit.Permit> permits = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			AdaptiveLimit.Permit permit = limit.tryAcquire(batch);
			if (permit != null) {
				permits.add(permit);
			}
		}
		assertThat(permits).hasSize(3);
		assertThat(batch.inFlight()).isEqualTo(3);
		// the rest of the limit is the other classes'
		for (int i = 0; i < 7; i++) {
			assertThat(limit.tryAcquire(null)).isNotNull();
		}
		assertThat(limit.tryAcquire(null)).isNull();
		permits.get(0).giveBack();
		assertThat(batch.inFlight()).isEqualTo(2);
		assertThat(limit.inFlight()).isEqualTo(9);
	}

	@Test
	void badNumbersAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> AdaptiveStrategy.of("fastest"))
			.withMessageContaining("gradient, vegas or aimd");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdaptiveLimit(AdaptiveStrategy.of("aimd"), 20, 30, 200, () -> 0));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveLimit.Share(1.5));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveLimit.Share(0));
	}

	private static AdaptiveStrategy.Sample sample(long rttMillis, int inFlight, boolean dropped) {
		return new AdaptiveStrategy.Sample(rttMillis * 1_000_000, rttMillis * 1_000_000, inFlight, dropped, 0);
	}

	/** What each strategy promises for a window, from the windows before it. */
	private static final class Oracle {

		private final String name;

		private double shortest = Double.MAX_VALUE;

		private double baseline = Double.MAX_VALUE;

		Oracle(String name) {
			this.name = name;
		}

		int direction(double limit, AdaptiveStrategy.Sample sample) {
			boolean used = sample.inFlight() * 2 >= limit;
			double rtt = Math.max(1, sample.rttNanos());
			switch (this.name) {
				case "aimd" -> {
					return sample.dropped() ? -1 : used ? 1 : 0;
				}
				case "vegas" -> {
					// the queue estimated from the quickest round trip, drifting up
					this.shortest = Math.min(this.shortest * (1 + VegasStrategy.DRIFT),
							Math.max(1, sample.minRttNanos()));
					double step = Math.max(1, Math.log10(limit));
					if (sample.dropped()) {
						return -1;
					}
					double queue = limit * (1 - this.shortest / rtt);
					return (queue < 3 * step) ? (used ? 1 : 0) : (queue > 6 * step) ? -1 : 0;
				}
				default -> {
					// slower than the tolerance allows: down; within it and used: up
					this.baseline = (rtt < this.baseline) ? rtt
							: this.baseline + (rtt - this.baseline) / GradientStrategy.LONG_WINDOW;
					if (sample.dropped() || rtt > GradientStrategy.TOLERANCE * this.baseline + EPSILON) {
						return -1;
					}
					return used ? 1 : 0;
				}
			}
		}

	}

	private record Move(double limit, AdaptiveStrategy.Sample sample, double next) {
	}

	/** A strategy that records each move of the one it wraps. */
	private static final class Recording implements AdaptiveStrategy {

		private final AdaptiveStrategy strategy;

		final List<Move> moves = new ArrayList<>();

		Recording(AdaptiveStrategy strategy) {
			this.strategy = strategy;
		}

		@Override
		public double next(double limit, Sample sample) {
			double next = this.strategy.next(limit, sample);
			this.moves.add(new Move(limit, sample, next));
			return next;
		}

	}

}
