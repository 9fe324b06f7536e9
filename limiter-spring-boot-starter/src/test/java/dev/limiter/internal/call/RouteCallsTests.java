package dev.limiter.internal.call;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The operation a gateway route's arguments give, registered beside the annotated
 * methods, and the errors that name the argument to fix, as each gateway spells it.
 */
class RouteCallsTests {

	// limiter.limits.hourly (1000 an hour, sliding buckets, a pro plan of 5000),
	// limiter.limits.watched (5 a second, shadowed), the defaults for the rest.
	private final LimitResolver limitResolver = new LimitResolver(
			Map.of("hourly",
					new LimitAttributes("hourly", 1000L, Duration.ofHours(1), Algorithm.SLIDING_BUCKETS, null, null,
							null, null, Map.of("pro", new LimitAttributes.Plan(5000L, null))),
					"watched",
					new LimitAttributes("watched", 5L, Duration.ofSeconds(1), null, null, null, null, true, Map.of())),
			Algorithm.SLIDING_LOG, false);

	private final RateLimitOperationSource operations = new RateLimitOperationSource(
			new RateLimitAnnotationParser(this.limitResolver, null));

	private final List<String> told = new ArrayList<>();

	private final RateLimitDecisionListener listener = new RateLimitDecisionListener() {

		@Override
		public void onDecision(RateLimitOperation operation, Decision decision) {
			RouteCallsTests.this.told.add(operation.getScope() + " " + (decision.isAllowed() ? "allowed" : "rejected"));
		}

		@Override
		public void onShadowDecision(RateLimitOperation operation, Decision decision) {
			RouteCallsTests.this.told
				.add(operation.getScope() + " shadow " + (decision.isAllowed() ? "allowed" : "rejected"));
		}

	};

	private final CallPipeline pipeline = new CallPipeline(
			new InMemoryRateLimiter(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), false), this.operations,
			new MethodRateLimitKeyResolver(), null, List.of(this.listener), null, CallClock.SYSTEM);

	private final RouteCalls calls = new RouteCalls(this.limitResolver, this.operations, this.pipeline);

	private static final CallPipeline.Delay NO_DELAY = (duration) -> CompletableFuture.completedFuture(null);

	@Test
	void anInlineLimitIsNamedAfterTheRouteAndTakesTheRoutesSettings() {
		AnnotatedOperation route = this.calls.register("orders", new RouteArguments(10L, Duration.ofSeconds(1),
				Algorithm.TOKEN_BUCKET, null, List.of(), FailurePolicy.FAIL_CLOSED, 1, null, null, Spelling.ROUTE));
		assertThat(route.getLimits()).containsExactly(Limit.of("orders", 10, Duration.ofSeconds(1))
			.withAlgorithm(Algorithm.TOKEN_BUCKET)
			.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(route.getLimits().get(0).failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(route.key("alice")).isEqualTo("r:orders:alice");
		assertThat(route.getMethod()).isNull();
		assertThat(route.getDescription()).isEqualTo("route 'orders'");
	}

	@Test
	void aNamedLimitKeepsItsOwnSettingsAndAloneSharesItsName() {
		AnnotatedOperation route = this.calls.register("orders", new RouteArguments(null, null, null, null,
				List.of(" hourly "), FailurePolicy.FAIL_CLOSED, 1, null, null, Spelling.ROUTE));
		Limit limit = route.getLimits().get(0);
		assertThat(limit.name()).isEqualTo("hourly");
		assertThat(limit.algorithm()).isEqualTo(Algorithm.SLIDING_BUCKETS);
		assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(route.getScope()).isEqualTo("n:hourly");
	}

	@Test
	void namedAndInlineLimitsCountOnTheRouteWithTheNamedLimitsPlansAndShadows() {
		AnnotatedOperation route = this.calls.register("orders", new RouteArguments(10L, Duration.ofSeconds(1), null,
				null, List.of("hourly", "watched"), null, 1, null, null, Spelling.ROUTE));
		assertThat(route.getLimits()).extracting(Limit::name).containsExactly("hourly", "watched", "orders");
		assertThat(route.getScope()).isEqualTo("r:orders");
		assertThat(route.getEnforcedLimits()).extracting(Limit::name).containsExactly("hourly", "orders");
		assertThat(route.getShadowLimits()).extracting(Limit::name).containsExactly("watched");
		assertThat(route.getPlans()).containsOnlyKeys("pro");
		assertThat(route.forPlan("pro").getLimits()).extracting(Limit::threshold).containsExactly(5000L, 5L, 10L);
		assertThat(route.forPlan("unknown")).isSameAs(route);
	}

	@Test
	void theRoutesOwnLimitCanOnlyWatch() {
		AnnotatedOperation route = this.calls.register("trial", new RouteArguments(10L, Duration.ofSeconds(1), null,
				null, List.of(), null, 1, true, null, Spelling.FILTER));
		assertThat(route.getEnforcedLimits()).isEmpty();
		assertThat(route.getShadowLimits()).extracting(Limit::name).containsExactly("trial");
	}

	@Test
	void aRouteIsListedBesideTheMethodsAndReplacedWhenBuiltAgain() {
		this.calls.register("orders", new RouteArguments(10L, Duration.ofSeconds(1), null, null, List.of(), null, 1,
				null, null, Spelling.ROUTE));
		AnnotatedOperation again = this.calls.register("orders", new RouteArguments(20L, Duration.ofSeconds(1), null,
				null, List.of(), null, 1, null, null, Spelling.ROUTE));
		assertThat(this.operations.getOperations()).containsExactly(again);
	}

	@Test
	void aRequestCountsUnderItsPlanAndTheListenersAreTold() throws Exception {
		AnnotatedOperation route = this.calls.register("orders",
				new RouteArguments(null, null, null, null, List.of("hourly"), null, 1, null, null, Spelling.ROUTE));
		CallHandle pro = this.calls.prepare(route, "ann", "pro", null);
		assertThat(pro.key()).isEqualTo("n:hourly:ann");
		assertThat(pro.operation().getLimits()).extracting(Limit::threshold).containsExactly(5000L);
		assertThat(decide(pro).remaining()).isEqualTo(4999);
		CallHandle free = this.calls.prepare(route, "bob", null, null);
		assertThat(decide(free).remaining()).isEqualTo(999);
		// a plan no limit defines gets the limits' own numbers, never no limit
		CallHandle unknown = this.calls.prepare(route, "cy", "gold", null);
		assertThat(unknown.operation().getLimits()).extracting(Limit::threshold).containsExactly(1000L);
		assertThat(this.told).containsExactly("n:hourly allowed", "n:hourly allowed");
	}

	@Test
	void aShadowLimitDecidesAfterTheEnforcedOnesAndNeverRejects() throws Exception {
		AnnotatedOperation route = this.calls.register("orders", new RouteArguments(3L, Duration.ofMinutes(1), null,
				null, List.of("watched"), null, 1, null, null, Spelling.FILTER));
		for (int i = 0; i < 6; i++) {
			CallHandle call = this.calls.prepare(route, "ann", null, null);
			Decision decision = (i % 2 == 0) ? decide(call) : decideAsync(call, NO_DELAY).get();
			assertThat(decision.isAllowed()).isEqualTo(i < 3);
		}
		assertThat(this.told).containsExactly("r:orders allowed", "r:orders shadow allowed", "r:orders allowed",
				"r:orders shadow allowed", "r:orders allowed", "r:orders shadow allowed", "r:orders rejected",
				"r:orders rejected", "r:orders rejected");
		CallHandle call = this.calls.prepare(route, "ann", null, null);
		Decision rejected = decide(call);
		assertThat(call.rejection()).isInstanceOf(RateLimitExceededException.class).hasMessageContaining("'orders'");
	}

	@Test
	void aRouteWithMaxWaitWaitsForATurnDueWithinItBlockingAndNot() throws Exception {
		MutableClock time = new MutableClock(Instant.EPOCH);
		List<Duration> waits = new ArrayList<>();
		// The wait moves the limiter's own clock: nothing waits for a wall clock.
		CallClock clock = new CallClock() {

			@Override
			public long nanoTime() {
				return 0;
			}

			@Override
			public void sleep(Duration duration) {
				waits.add(duration);
				time.advance(duration);
			}

		};
		RouteCalls calls = new RouteCalls(this.limitResolver, this.operations,
				new CallPipeline(new InMemoryRateLimiter(time, false), this.operations,
						new MethodRateLimitKeyResolver(), null, List.of(this.listener), null, clock));
		CallPipeline.Delay delay = (duration) -> {
			waits.add(duration);
			time.advance(duration);
			return CompletableFuture.completedFuture(null);
		};
		AnnotatedOperation route = calls.register("paced", new RouteArguments(1L, Duration.ofSeconds(1), null, null,
				List.of(), null, 1, null, Duration.ofSeconds(2), Spelling.FILTER));
		assertThat(decide(calls.prepare(route, "ann", null, null)).isAllowed()).isTrue();
		assertThat(decide(calls.prepare(route, "ann", null, null)).isAllowed()).isTrue();
		assertThat(decideAsync(calls.prepare(route, "ann", null, null), delay).get().isAllowed()).isTrue();
		assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
		assertThat(this.told).containsExactly("r:paced allowed", "r:paced allowed", "r:paced allowed");
		// A turn beyond the wait is rejected at once, without waiting.
		AnnotatedOperation slow = calls.register("slow", new RouteArguments(1L, Duration.ofMinutes(1), null, null,
				List.of(), null, 1, null, Duration.ofSeconds(2), Spelling.FILTER));
		assertThat(decide(calls.prepare(slow, "ann", null, null)).isAllowed()).isTrue();
		assertThat(decide(calls.prepare(slow, "ann", null, null)).isAllowed()).isFalse();
		assertThat(waits).hasSize(2);
	}

	@Test
	void aMaxWaitBeyondTheLongestAcceptedStopsTheRoutesStart() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.calls.register("patient",
					new RouteArguments(1L, Duration.ofSeconds(1), null, null, List.of(), null, 1, null,
							Duration.ofMinutes(5), Spelling.ROUTE)))
			.withMessage("route 'patient': limiter.max-wait is 300000ms, not a duration between 0 and 60s. Set it to "
					+ "how long a request may wait for its turn, such as limiter.max-wait: 500ms, or remove it to "
					+ "reject at once.");
	}

	@Test
	void aRouteThatOnlyWatchesTellsItsClientNothing() throws Exception {
		AnnotatedOperation route = this.calls.register("trial", new RouteArguments(1L, Duration.ofMinutes(1), null,
				null, List.of(), null, 1, true, null, Spelling.FILTER));
		for (int i = 0; i < 2; i++) {
			assertThat(decide(this.calls.prepare(route, "ann", null, null))).isNull();
			assertThat(decideAsync(this.calls.prepare(route, "bob", null, null), NO_DELAY).get()).isNull();
		}
		assertThat(this.told).containsExactly("r:trial shadow allowed", "r:trial shadow allowed",
				"r:trial shadow rejected", "r:trial shadow rejected");
	}

	@Test
	void badArgumentsAreNamedAsTheReactiveGatewaySpellsThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> register(null, null, Spelling.ROUTE))
			.withMessageContaining("gives no limit. Add limiter.threshold and limiter.period, or limiter.name");
		assertThatIllegalArgumentException().isThrownBy(() -> register(null, Duration.ofSeconds(1), Spelling.ROUTE))
			.withMessageContaining("but only limiter.period is given");
		assertThatIllegalArgumentException().isThrownBy(() -> register(0L, Duration.ofSeconds(1), Spelling.ROUTE))
			.withMessageStartingWith("route 'r': limiter.threshold/limiter.period: threshold must be between 1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.calls.register("r",
					new RouteArguments(null, null, null, null, List.of("daily"), null, 1, null, null, Spelling.ROUTE)))
			.withMessageContaining("limiter.name 'daily' is not defined")
			.withMessageContaining("limiter.limits.daily.threshold");
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> this.calls.register("r",
							new RouteArguments(10L, Duration.ofSeconds(1), null, 10, List.of(), null, 1, null, null,
									Spelling.ROUTE)))
			.withMessageContaining("slices = 10 is given to a sliding-log limit");
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> this.calls
						.register("r",
								new RouteArguments(null, null, Algorithm.TOKEN_BUCKET, null, List.of("hourly"), null, 1,
										null, null, Spelling.ROUTE)))
			.withMessageContaining("Remove limiter.algorithm");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.calls.register("r",
					new RouteArguments(10L, Duration.ofSeconds(1), null, null, List.of(), null, 11, null, null,
							Spelling.ROUTE)))
			.withMessageContaining("limiter.permits: permits must be between 1 and the smallest threshold (10)");
		assertThat(this.operations.getOperations()).isEmpty();
	}

	@Test
	void badArgumentsAreNamedAsTheMvcGatewaySpellsThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> register(null, null, Spelling.FILTER))
			.withMessageContaining("gives no limit. Add threshold and period, or name naming a limit");
		assertThatIllegalArgumentException().isThrownBy(() -> register(10L, null, Spelling.FILTER))
			.withMessage("route 'r': threshold and period go together, but only threshold is given. Give both, "
					+ "such as threshold: 10 and period: 1m.");
	}

	private AnnotatedOperation register(Long threshold, Duration period, Spelling spelling) {
		return this.calls.register("r",
				new RouteArguments(threshold, period, null, null, List.of(), null, 1, null, null, spelling));
	}

	/**
	 * Decide a route's call and return its enforced decision, as the gateways read it.
	 */
	private static Decision decide(CallHandle call) throws InterruptedException {
		call.decide();
		return call.decision();
	}

	private static java.util.concurrent.CompletableFuture<Decision> decideAsync(CallHandle call,
			CallPipeline.Delay delay) {
		return call.decideAsync(delay).thenApply((admitted) -> call.decision());
	}

}
