package dev.limiter.internal.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CircuitBreakerTests {

	private final AtomicLong nanos = new AtomicLong();

	private final List<String> events = new ArrayList<>();

	private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofMillis(500), this.nanos::get,
			new CircuitBreaker.Listener() {

				@Override
				public void opened(Throwable cause) {
					CircuitBreakerTests.this.events.add("opened: " + cause.getMessage());
				}

				@Override
				public void closed(Duration outage) {
					CircuitBreakerTests.this.events.add("closed after " + outage.toMillis() + "ms");
				}

			});

	@Test
	void aStoreThatStillAnswersLateNeverOpensAClosedBreakerButReopensAProbingOne() {
		for (int i = 0; i < 10; i++) {
			this.breaker.onFailure(new Late());
		}
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.breaker.lastFailure()).isInstanceOf(Late.class);
		for (int i = 0; i < 3; i++) {
			this.breaker.onFailure(new IllegalStateException("down"));
		}
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		this.nanos.addAndGet(Duration.ofMillis(500).toNanos());
		assertThat(this.breaker.tryAcquire()).isTrue();
		// the probe is the only call that reaches the store: a late answer is no answer
		this.breaker.onFailure(new Late());
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
	}

	private static final class Late extends RuntimeException implements CircuitBreaker.StillAnswering {

		Late() {
			super("late");
		}

	}

	@Test
	void opensAfterConsecutiveFailuresOnly() {
		this.breaker.onFailure(new IllegalStateException("down"));
		this.breaker.onFailure(new IllegalStateException("down"));
		this.breaker.onSuccess();
		this.breaker.onFailure(new IllegalStateException("down"));
		this.breaker.onFailure(new IllegalStateException("down"));
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		this.breaker.onFailure(new IllegalStateException("down"));
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.remainingOpen()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void letsOneProbeThroughAfterTheOpenDurationAndClosesOnSuccess() {
		open();
		this.nanos.addAndGet(Duration.ofMillis(499).toNanos());
		assertThat(this.breaker.tryAcquire()).isFalse();
		this.nanos.addAndGet(Duration.ofMillis(1).toNanos());
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		assertThat(this.breaker.tryAcquire()).as("only one probe").isFalse();
		this.breaker.onSuccess();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.events).containsExactly("opened: down", "closed after 500ms");
	}

	@Test
	void failedProbeOpensAgainWithoutAnotherOutageEvent() {
		open();
		this.nanos.addAndGet(Duration.ofMillis(500).toNanos());
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onFailure(new IllegalStateException("still down"));
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.breaker.tryAcquire()).isFalse();
		this.nanos.addAndGet(Duration.ofMillis(500).toNanos());
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess();
		assertThat(this.events).containsExactly("opened: down", "closed after 1000ms");
	}

	@Test
	void rejectsBadSettings() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(0, Duration.ofSeconds(1), System::nanoTime, null))
			.withMessage("failureThreshold must be at least 1, was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(1, Duration.ofSeconds(-1), System::nanoTime, null))
			.withMessage("openDuration must not be null or negative, was PT-1S");
	}

	private void open() {
		for (int i = 0; i < 3; i++) {
			this.breaker.onFailure(new IllegalStateException("down"));
		}
	}

}
