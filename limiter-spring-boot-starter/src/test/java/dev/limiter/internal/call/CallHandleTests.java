package dev.limiter.internal.call;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

import dev.limiter.Algorithm;
import dev.limiter.CostExceedsLimitException;
import dev.limiter.Decision;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.internal.key.Callers;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.key.RateLimitKeyResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What follows a call's decision, the same for every surface: a cost no limit holds is
 * refused before the store with no time to retry; an end is given once, whoever asks; the
 * caller is found by one rule (the call's own name, the application's resolver, the
 * principal, the address, everyone); a settled limit must be one that can be charged.
 */
class CallHandleTests {

	// limiter.limits.points: 100 an hour, sliding buckets; limiter.limits.log: the
	// default
	private final LimitResolver limitResolver = new LimitResolver(
			Map.of("points",
					new LimitAttributes("points", 100L, Duration.ofHours(1), Algorithm.SLIDING_BUCKETS, null, null,
							null, null, Map.of()),
					"log",
					new LimitAttributes("log", 100L, Duration.ofHours(1), null, null, null, null, null, Map.of())),
			Algorithm.SLIDING_LOG, false);

	private final InMemoryRateLimiter limiter = new InMemoryRateLimiter(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
			false);

	private final List<Runnable> ends = new ArrayList<>();

	@AfterEach
	void nobody() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void aCostNoLimitHoldsIsRefusedBeforeTheStoreNamingItsNumbersAndPromisingNoWait() throws Exception {
		SurfaceCalls calls = calls(new MethodRateLimitKeyResolver());
		AnnotatedOperation budget = calls.register("budget", List.of("points"), null, "limiter.test.key");
		CallHandle call = calls.prepare(budget, null, new Object[0], request("ip:10.0.0.1"))
			.costing(101, "points", "ask for less");
		assertThat(call.decide()).isFalse();
		assertThat(call.answeredAtOnce()).isTrue();
		assertThat(call.rejection()).isInstanceOfSatisfying(CostExceedsLimitException.class, (refused) -> {
			assertThat(refused.getCost()).isEqualTo(101);
			assertThat(refused.getLargestCost()).isEqualTo(100);
			assertThat(refused.getDecision().retryAfter()).isZero();
			assertThat(refused).hasMessage("The call costs 101 points, more than the 100 that limit 'points' holds "
					+ "in all, so it can never pass: ask for less");
		});
		assertThat(this.limiter.usage(budget.key("ip:10.0.0.1"), budget.getLimits()).get(0).used())
			.as("nothing counted")
			.isZero();
		CallHandle async = calls.prepare(budget, null, new Object[0], request("ip:10.0.0.1")).costing(1000);
		assertThat(async.decideAsync((duration) -> CompletableFuture.completedFuture(null)))
			.isCompletedWithValue(false);
		assertThat(async.rejection()).isInstanceOf(CostExceedsLimitException.class);
	}

	@Test
	void theWholeLimitStillPasses() throws Exception {
		SurfaceCalls calls = calls(new MethodRateLimitKeyResolver());
		AnnotatedOperation budget = calls.register("budget", List.of("points"), null, "limiter.test.key");
		CallHandle call = calls.prepare(budget, null, new Object[0], request("ip:10.0.0.1")).costing(100);
		assertThat(call.decide()).isTrue();
		assertThat(call.decision().remaining()).isZero();
	}

	@Test
	void anEndIsGivenOnceWhoeverAsksAndRunsOffTheCallersThreadWhereItTalksToTheStore() throws Exception {
		SurfaceCalls calls = calls(new MethodRateLimitKeyResolver());
		AnnotatedOperation budget = calls.register("budget", List.of("points"), null, "limiter.test.key");
		CallHandle call = calls.prepare(budget, null, new Object[0], request("ip:10.0.0.2"));
		assertThat(call.decide()).isTrue();
		assertThat(call.endTalksToStore(null)).as("no slots, no refund").isFalse();
		CompletableFuture<Void> ended = call.endAsync(null);
		assertThat(ended).as("ended at once, on this thread").isDone();
		assertThat(this.ends).isEmpty();
		call.end(new IllegalStateException("a second end does nothing"));
		Decision after = this.limiter.acquire(budget.key("ip:10.0.0.2"), 1, budget.getLimits());
		assertThat(after.remaining()).as("the call's permit kept").isEqualTo(98);
	}

	@Test
	void aSurfacesCallerIsThePrincipalElseTheAddressElseEveryone() {
		assertThat(Callers.caller(null, null)).isEqualTo("all");
		assertThat(Callers.caller(null, "10.0.0.1")).isEqualTo("ip:10.0.0.1");
		assertThat(Callers.caller("alice", "10.0.0.1")).isEqualTo("u:alice");
		assertThat(Callers.principal()).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
					List.of(new SimpleGrantedAuthority("ROLE_ANONYMOUS"))));
		assertThat(Callers.principal()).as("the anonymous token is nobody").isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(new TestingAuthenticationToken("alice", null, "ROLE_USER"));
		assertThat(Callers.principal()).isEqualTo("alice");
	}

	@Test
	void theApplicationsKeyResolverNamesASurfacesCallerUnlessTheCallNamesItsOwn() throws Exception {
		RateLimitKeyResolver tenants = (invocation) -> "t:acme";
		SurfaceCalls calls = calls(tenants);
		AnnotatedOperation budget = calls.register("budget", List.of("points"), null, "limiter.test.key");
		assertThat(calls.prepare(budget, null, new Object[0], request("ip:10.0.0.1")).key())
			.isEqualTo(budget.key("t:acme"));
		assertThat(calls.prepare(budget, null, new Object[0], named("u:bob")).key()).as("a call's own name")
			.isEqualTo(budget.key("u:bob"));
		SurfaceCalls unanswered = calls((invocation) -> {
			throw new IllegalStateException("a resolver for web requests only");
		});
		AnnotatedOperation other = unanswered.register("other", List.of("points"), null, "limiter.test.key");
		assertThat(unanswered.prepare(other, null, new Object[0], request("ip:10.0.0.1")).key())
			.as("the surface's own caller when the resolver gives none")
			.isEqualTo(other.key("ip:10.0.0.1"));
		assertThat(calls(new MethodRateLimitKeyResolver()).prepare(budget, null, new Object[0], request("ip:10.0.0.1"))
			.key()).as("Limiter's own resolver is not asked: the surface knows its caller")
			.isEqualTo(budget.key("ip:10.0.0.1"));
	}

	@Test
	void aSurfaceThatSettlesOnALimitThatCannotBeChargedStopsNamingTheAlgorithmsThatCan() {
		SurfaceCalls calls = calls(new MethodRateLimitKeyResolver());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> calls.register("budget", List.of("log"), null, "limiter.test.key", "limiter.test.settle"))
			.withMessageContaining("limiter.test.settle is given to the sliding-log limit 'log'")
			.withMessageContaining("Set limiter.limits.log.algorithm to sliding-buckets or token-bucket");
		assertThat(calls.register("budget", List.of("points"), null, "limiter.test.key", "limiter.test.settle")
			.getLimits()).hasSize(1);
	}

	@Test
	void aSurfacesUndefinedLimitIsNamedByItsOwnPropertyWithoutARoute() {
		SurfaceCalls calls = calls(new MethodRateLimitKeyResolver());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> calls.register("budget", List.of("pionts"), null, "limiter.test.key"))
			.withMessageStartingWith(
					"limiter.test.limit: limiter.limits.pionts: the limit 'pionts' is not defined with a threshold")
			.withMessageNotContaining("route");
	}

	private SurfaceCalls calls(RateLimitKeyResolver keyResolver) {
		RateLimitOperationSource operations = new RateLimitOperationSource(
				new RateLimitAnnotationParser(this.limitResolver, null));
		CallPipeline pipeline = new CallPipeline(this.limiter, operations, keyResolver, null, List.of(), null,
				CallClock.SYSTEM);
		pipeline.setEndExecutor((end) -> {
			this.ends.add(end);
			end.run();
		});
		return new SurfaceCalls(pipeline, new RouteCalls(this.limitResolver, operations, pipeline));
	}

	private static SurfaceRequest request(String caller) {
		return new SurfaceRequest() {

			@Override
			public String caller() {
				return caller;
			}

			@Override
			public Object variable(String name) {
				return null;
			}

		};
	}

	private static SurfaceRequest named(String caller) {
		return new SurfaceRequest() {

			@Override
			public String caller() {
				return caller;
			}

			@Override
			public boolean namesCaller() {
				return true;
			}

			@Override
			public Object variable(String name) {
				return null;
			}

		};
	}

}
