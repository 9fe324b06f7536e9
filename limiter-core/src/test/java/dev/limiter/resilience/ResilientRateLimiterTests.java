package dev.limiter.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.resilience.CircuitBreaker;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ResilientRateLimiterTests {

	private final AtomicLong nanos = new AtomicLong();

	private final AtomicInteger storeCalls = new AtomicInteger();

	private volatile boolean storeDown;

	private final AbstractRateLimiter store = new AbstractRateLimiter() {
		@Override
		protected Decision doAcquire(String key, long permits, List<Limit> limits) {
			ResilientRateLimiterTests.this.storeCalls.incrementAndGet();
			if (ResilientRateLimiterTests.this.storeDown) {
				throw new IllegalStateException("connection refused");
			}
			return Decision.allowed(limits.get(0), 1, limits.get(0).period(), 0);
		}
	};

	private final List<FailurePolicy> degraded = new ArrayList<>();

	private final CircuitBreaker breaker = new CircuitBreaker(2, Duration.ofSeconds(1), this.nanos::get, null);

	private ResilientRateLimiter limiter(FailurePolicy policy) {
		return new ResilientRateLimiter(this.store, policy, new InMemoryRateLimiter(MutableClock.startingNow(), false),
				this.breaker, (decision, p) -> this.degraded.add(p));
	}

	private final Limit limit = Limit.of(2, Duration.ofSeconds(10));

	@Test
	void aDecisionOfTheLocalPolicyIsChargedInMemoryAndOneOfFailOpenIsNot() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.LOCAL);
		Limit buckets = Limit.of(10, Duration.ofMinutes(1)).withAlgorithm(dev.limiter.Algorithm.SLIDING_BUCKETS);
		Decision local = limiter.acquire("k", buckets);
		assertThat(local.policy()).isEqualTo(FailurePolicy.LOCAL);
		Decision charged = limiter.charge(local, 14);
		assertThat(charged.policy()).as("still the policy's").isEqualTo(FailurePolicy.LOCAL);
		assertThat(charged.remaining()).isZero();
		assertThat(limiter.acquire("k", buckets).isAllowed()).as("15 counted in memory").isFalse();
		assertThat(limiter.release(local)).as("a degraded decision is not refunded").isFalse();
		Decision open = limiter(FailurePolicy.FAIL_OPEN).acquire("other", buckets);
		assertThat(limiter.charge(open, 14)).isSameAs(open);
	}

	@Test
	void aKnownRejectionPassesOnlyWhileTheBreakerIsClosed() {
		Decision remembered = Decision.rejected(this.limit, 0, Duration.ofSeconds(3), Duration.ofSeconds(3), 0);
		class Remembering extends AbstractRateLimiter implements dev.limiter.cache.RejectionCache {

			@Override
			protected Decision doAcquire(String key, long permits, List<Limit> limits) {
				return ResilientRateLimiterTests.this.store.acquire(key, permits, limits);
			}

			@Override
			public Decision cachedRejection(String key, long permits, List<Limit> limits) {
				return remembered;
			}

			@Override
			public void forgetCachedRejections(String key) {
			}

		}
		AbstractRateLimiter remembering = new Remembering();
		ResilientRateLimiter limiter = new ResilientRateLimiter(remembering, FailurePolicy.FAIL_OPEN,
				new InMemoryRateLimiter(MutableClock.startingNow(), false), this.breaker, null);
		assertThat(limiter.cachedRejection("k", 1, List.of(this.limit))).isSameAs(remembered);
		this.storeDown = true;
		limiter.acquire("k", this.limit);
		limiter.acquire("k", this.limit);
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(limiter.cachedRejection("k", 1, List.of(this.limit))).as("the policy answers while open").isNull();
		assertThat(this.storeCalls).hasValue(2);
	}

	@Test
	void theNonBlockingPathAppliesTheSamePolicyAndBreaker() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_OPEN);
		for (int i = 0; i < 5; i++) {
			Decision decision = limiter.acquireAsync("k", 1, List.of(this.limit)).join();
			assertThat(decision.isAllowed()).isTrue();
			assertThat(decision.policy()).isEqualTo(FailurePolicy.FAIL_OPEN);
		}
		// Two failures open the breaker: the other calls never reach the store.
		assertThat(this.storeCalls).hasValue(2);
		assertThat(this.degraded).hasSize(5).containsOnly(FailurePolicy.FAIL_OPEN);
	}

	@Test
	void aFailClosedRejectionCarriesItsPolicyAndThrowsUnavailable() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_CLOSED);
		Decision decision = limiter.acquire("k", this.limit);
		assertThat(decision.policy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThatExceptionOfType(RateLimitUnavailableException.class)
			.isThrownBy(() -> limiter.acquireOrThrow("k", 1, List.of(this.limit)))
			.satisfies((ex) -> assertThat(ex.getDecision().policy()).isEqualTo(FailurePolicy.FAIL_CLOSED))
			.withMessageContaining("cannot be checked: the limiter's store is unavailable");
	}

	@Test
	void aLocalRejectionIsAnOrdinaryRejection() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.LOCAL);
		Limit one = Limit.of(1, Duration.ofMinutes(1));
		limiter.acquire("k", one);
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> limiter.acquireOrThrow("k", 1, List.of(one)))
			.isNotInstanceOf(RateLimitUnavailableException.class)
			.satisfies((ex) -> assertThat(ex.getDecision().policy()).isEqualTo(FailurePolicy.LOCAL));
	}

	@Test
	void theLocalPolicyCountsWithTheLimitsOwnAlgorithm() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.LOCAL);
		Limit tokens = Limit.of(4, Duration.ofSeconds(2)).withAlgorithm(Algorithm.TOKEN_BUCKET).withLocalThreshold(2);
		assertThat(limiter.acquire("k", tokens).isAllowed()).isTrue();
		assertThat(limiter.acquire("k", tokens).isAllowed()).isTrue();
		Decision rejected = limiter.acquire("k", tokens);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.policy()).isEqualTo(FailurePolicy.LOCAL);
		// 2 tokens refilled over 2 s locally: one every second
		assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(limiter.release(rejected)).isFalse();
	}

	@Test
	void aDegradedDecisionIsNotReleased() {
		this.storeDown = true;
		Decision degraded = limiter(FailurePolicy.FAIL_OPEN).acquire("k", this.limit);
		assertThat(limiter(FailurePolicy.FAIL_OPEN).release(degraded)).isFalse();
	}

	@Test
	void usesTheStoreWhileItAnswers() {
		Decision decision = limiter(FailurePolicy.FAIL_CLOSED).acquire("k", this.limit);
		assertThat(decision.isAllowed()).isTrue();
		assertThat(decision.isDegraded()).isFalse();
		assertThat(this.degraded).isEmpty();
	}

	@Test
	void failOpenAdmitsWithUnknownRemaining() {
		this.storeDown = true;
		Decision decision = limiter(FailurePolicy.FAIL_OPEN).acquire("k", this.limit);
		assertThat(decision.isAllowed()).isTrue();
		assertThat(decision.isDegraded()).isTrue();
		assertThat(decision.remaining()).isEqualTo(-1);
		assertThat(this.degraded).containsExactly(FailurePolicy.FAIL_OPEN);
	}

	@Test
	void failClosedRejectsUntilTheBreakerProbes() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_OPEN);
		Limit login = this.limit.withFailurePolicy(FailurePolicy.FAIL_CLOSED);
		assertThat(limiter.acquire("k", login).isAllowed()).isFalse();
		Decision decision = limiter.acquire("k", login);
		assertThat(decision.isAllowed()).isFalse();
		assertThat(decision.isDegraded()).isTrue();
		assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.degraded).containsOnly(FailurePolicy.FAIL_CLOSED);
	}

	@Test
	void localDecidesInMemoryAtTheLocalThreshold() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.LOCAL);
		Limit local = this.limit.withLocalThreshold(1);
		assertThat(limiter.acquire("k", local).isAllowed()).isTrue();
		Decision rejected = limiter.acquire("k", local);
		assertThat(rejected.isAllowed()).isFalse();
		assertThat(rejected.isDegraded()).isTrue();
		assertThat(rejected.limit().threshold()).isEqualTo(1);
	}

	@Test
	void anyFailClosedLimitRejectsTheWholeCall() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_OPEN);
		Limit closed = Limit.of(5, Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED);
		assertThat(limiter.acquire("k", this.limit, closed).isAllowed()).isFalse();
	}

	@Test
	void breakerStopsCallingTheStoreAndProbesItBack() {
		this.storeDown = true;
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_OPEN);
		for (int i = 0; i < 10; i++) {
			limiter.acquire("k", this.limit);
		}
		assertThat(this.storeCalls).hasValue(2);
		this.storeDown = false;
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		Decision back = limiter.acquire("k", this.limit);
		assertThat(back.isDegraded()).isFalse();
		assertThat(this.storeCalls).hasValue(3);
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void invalidArgumentsAreNotOutages() {
		ResilientRateLimiter limiter = limiter(FailurePolicy.FAIL_OPEN);
		for (int i = 0; i < 5; i++) {
			org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
				.isThrownBy(() -> limiter.acquire("k", 3, List.of(this.limit)));
		}
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.storeCalls).hasValue(0);
	}

	@Test
	void aChargeTheStoreRefusesAsInvalidFailsTheSameWayBlockingAndNotAndIsNoOutage() {
		AbstractRateLimiter refusing = new AbstractRateLimiter() {
			@Override
			protected Decision doAcquire(String key, long permits, List<Limit> limits) {
				return dev.limiter.internal.Decisions
					.granting(Decision.allowed(limits.get(0), 1, limits.get(0).period(), 0), key, permits, limits, "m");
			}

			@Override
			protected Decision doCharge(Decision decision, Decision.Grant grant, long permits) {
				throw new IllegalArgumentException("not a grant of this store");
			}
		};
		ResilientRateLimiter limiter = new ResilientRateLimiter(refusing, FailurePolicy.FAIL_OPEN,
				new InMemoryRateLimiter(MutableClock.startingNow(), false), this.breaker, null);
		Limit buckets = Limit.of(10, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS);
		Decision admitted = limiter.acquire("k", buckets);
		for (int i = 0; i < 3; i++) {
			org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
				.isThrownBy(() -> limiter.charge(admitted, 2))
				.withMessage("not a grant of this store");
			assertThat(limiter.chargeAsync(admitted, 2)).failsWithin(Duration.ZERO)
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalArgumentException.class)
				.withMessage("not a grant of this store");
		}
		assertThat(this.breaker.state()).as("the caller's mistake is no outage of the store")
			.isEqualTo(CircuitBreaker.State.CLOSED);
	}

}
