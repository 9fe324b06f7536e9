package dev.limiter.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterMetricsAutoConfiguration;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.internal.actuate.LimiterObservations;
import dev.limiter.internal.call.CallClock;
import dev.limiter.internal.call.RecordingCallClock;
import dev.limiter.internal.web.servlet.ServerErrorRefunds;

import static dev.limiter.web.WebTests.mvc;
import static dev.limiter.web.WebTests.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Only what should count counts: a false {@code condition} skips the limit, a call that
 * ends in a {@code refundOn} exception gives its permit back, and a limit in shadow mode
 * lets every call through while counting what it would have rejected.
 */
class CountingWebIntegrationTests {

	private final WebApplicationContextRunner contextRunner = WebTests.contextRunner(CountingConfiguration.class)
		.withConfiguration(AutoConfigurations.of(LimiterMetricsAutoConfiguration.class))
		.withPropertyValues("limiter.limits.api.plans.pro.threshold=3");

	@BeforeEach
	void flushRedis() {
		redis.flushAll();
	}

	@Test
	void callsThatFailWithARefundedExceptionLeaveTheFullQuota() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			for (int i = 0; i < 3 + 5; i++) {
				MockHttpServletResponse failed = WebTests.call(mvc, get("/upstream").param("fail", "true"));
				assertThat(failed.getStatus()).isEqualTo(503);
				// written at admission, before the method ran: the call itself counts,
				// the
				// refunds before it show
				assertThat(failed.getHeader("RateLimit")).as("headers of refunded call %d", i + 1)
					.isEqualTo("\"default\";r=2;t=60");
			}
			assertThat(statuses(mvc, get("/upstream"), get("/upstream"), get("/upstream"), get("/upstream")))
				.containsExactly(200, 200, 200, 429);
		});
	}

	@Test
	void anExceptionThatIsNotListedIsCharged() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/upstream").param("bad", "true"), get("/upstream").param("bad", "true"),
					get("/upstream").param("bad", "true"), get("/upstream")))
				.containsExactly(400, 400, 400, 429);
		});
	}

	@Test
	void aServerErrorGivesThePermitsBackWhenAsked() {
		this.contextRunner.withPropertyValues("limiter.web.refund-server-errors=true").run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
				.addFilters(context.getBean(ServerErrorRefunds.class))
				.build();
			for (int i = 0; i < 3 + 5; i++) {
				assertThat(statuses(mvc, get("/upstream").param("crash", "true"))).containsExactly(500);
			}
			assertThat(statuses(mvc, get("/upstream"), get("/upstream"), get("/upstream"), get("/upstream")))
				.containsExactly(200, 200, 200, 429);
		});
	}

	@Test
	void aFalseConditionSkipsTheLimit() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			for (int i = 0; i < 5; i++) {
				assertThat(statuses(mvc, get("/reports").param("tier", "internal"))).containsExactly(200);
			}
			assertThat(statuses(mvc, get("/reports").param("tier", "public"), get("/reports").param("tier", "public")))
				.containsExactly(200, 429);
		});
	}

	@Test
	void aShadowLimitLetsABurstThroughAndCountsWhatItWouldHaveRejected() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			for (int i = 0; i < 5; i++) {
				MockHttpServletResponse response = WebTests.call(mvc, get("/shadowed"));
				assertThat(response.getStatus()).isEqualTo(200);
				assertThat(response.getHeaderNames()).as("a shadow limit sends no quota headers, admitting or not")
					.noneMatch((name) -> name.toLowerCase(java.util.Locale.ROOT).contains("ratelimit"));
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(LimiterMetrics.DECISIONS)
				.tag("limit", "n:shadowed")
				.tag("result", "shadow-rejected")
				.counter()
				.count()).isEqualTo(3);
			assertThat(registry.get(LimiterMetrics.DECISIONS)
				.tag("result", "allowed")
				.tag("degraded", "false")
				.counter()
				.count()).isEqualTo(2);
		});
		// Enforcing it now rejects at once: the two admitted calls are in the window.
		this.contextRunner.withPropertyValues("limiter.limits.shadowed.shadow=false").run((context) -> {
			assertThat(statuses(mvc(context), get("/shadowed"))).containsExactly(429);
		});
	}

	@Test
	void aShadowLimitBesideAnEnforcedOneOfTheSameWindowCountsNeitherTheOthersCalls() {
		// Each counts the calls it decides under a key of its own: the shadow limit used
		// to count the enforced calls and add its own to them, and the enforced limit
		// rejected the 4th call while 4 a minute were allowed.
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			// The first call loads the script (flushed with the keys), which is a script
			// call that fails and one that runs; then one script call per call decides
			// both
			// limits, the shadow one only once the enforced one admits the call.
			assertThat(statuses(mvc, get("/trial"))).containsExactly(200);
			long scripts = redis.scriptCalls();
			assertThat(statuses(mvc, get("/trial"), get("/trial"), get("/trial"), get("/trial"))).containsExactly(200,
					200, 200, 429);
			assertThat(redis.scriptCalls() - scripts).as("one script call per call, shadow limit included")
				.isEqualTo(4);
			assertThat(context.getBean(MeterRegistry.class)
				.get(LimiterMetrics.DECISIONS)
				.tag("limit", "m:" + CountingController.class.getName() + ".trial")
				.tag("result", "shadow-rejected")
				.counter()
				.count()).as("the 3rd and 4th calls, over the shadow limit's 2").isEqualTo(2);
		});
	}

	@Test
	void decisionsAreCountedAndTimedPerLimitNeverPerCaller() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/reports").param("tier", "public"), get("/reports").param("tier", "public")))
				.containsExactly(200, 429);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			String limit = registry.get(LimiterMetrics.DURATION).timer().getId().getTag("limit");
			assertThat(limit).startsWith("m:").contains("CountingController.reports");
			assertThat(registry.get(LimiterMetrics.DURATION).tag("limit", limit).timer().count()).isEqualTo(2);
			assertThat(registry.get(LimiterMetrics.DECISIONS)
				.tag("limit", limit)
				.tag("result", "rejected")
				.tag("degraded", "false")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.find(LimiterMetrics.DECISIONS).counters())
				.allSatisfy((counter) -> assertThat(counter.getId().getTag("limit")).doesNotContain("10.0.0.1"));
		});
	}

	@Test
	void aCallThatWouldPassWithinMaxWaitWaitsForItsTurnOnce() {
		RecordingCallClock clock = new RecordingCallClock();
		this.contextRunner.withBean(CallClock.class, () -> clock).run((context) -> {
			MockMvc mvc = mvc(context);
			// One per second: the second call is admitted only by waiting for the first
			// to leave the window, once, for no longer than the window.
			assertThat(statuses(mvc, get("/turn"), get("/turn"))).containsExactly(200, 200);
			assertThat(clock.waits()).singleElement()
				.satisfies((wait) -> assertThat(wait).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1)));
			assertThat(statuses(mvc, get("/impatient"), get("/impatient"))).containsExactly(200, 429);
			assertThat(clock.waits()).as("a turn beyond maxWait is not waited for").hasSize(1);
		});
	}

	/**
	 * Six calls at once at 2 a second with 5 s to wait: each waits until it passes, also
	 * when another caller took the turn it waited for (four wait for the two turns of the
	 * next second; two used to get a 429 although their turn came a second later).
	 */
	@Test
	void callsThatWouldPassWithinMaxWaitWaitUntilTheyPassWhenOthersTakeTheirTurn() throws Exception {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(6);
			try {
				List<java.util.concurrent.Future<Integer>> calls = new ArrayList<>();
				for (int i = 0; i < 6; i++) {
					calls.add(threads.submit(() -> WebTests.call(mvc, get("/queued")).getStatus()));
				}
				List<Integer> statuses = new ArrayList<>();
				for (java.util.concurrent.Future<Integer> call : calls) {
					statuses.add(call.get(30, java.util.concurrent.TimeUnit.SECONDS));
				}
				assertThat(statuses).containsOnly(200);
			}
			finally {
				threads.shutdownNow();
			}
		});
	}

	@Test
	void eachUserGetsTheThresholdOfTheirPlanAndAnUnknownPlanTheLimitsOwn() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/api").param("user", "alice").param("tier", "free"),
					get("/api").param("user", "alice").param("tier", "free")))
				.containsExactly(200, 429);
			assertThat(statuses(mvc, get("/api").param("user", "bob").param("tier", "pro"),
					get("/api").param("user", "bob").param("tier", "pro"),
					get("/api").param("user", "bob").param("tier", "pro"),
					get("/api").param("user", "bob").param("tier", "pro")))
				.containsExactly(200, 200, 200, 429);
			assertThat(statuses(mvc, get("/api").param("user", "carol").param("tier", "gold"),
					get("/api").param("user", "carol").param("tier", "gold")))
				.as("a plan the configuration does not define is never unlimited")
				.containsExactly(200, 429);
		});
	}

	@Test
	void eachDecisionIsAnObservationWithTheLimitAndTheResultButNotTheKey() {
		List<Observation.Context> observed = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.contextRunner.withBean(ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public void onStop(Observation.Context context) {
					observed.add(context);
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			});
			return registry;
		}).run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/reports").param("tier", "public"), get("/reports").param("tier", "public")))
				.containsExactly(200, 429);
			assertThat(observed).hasSize(2).allSatisfy((observation) -> {
				assertThat(observation.getName()).isEqualTo(LimiterObservations.NAME);
				assertThat(observation.getLowCardinalityKeyValue("limiter.limit").getValue())
					.contains("CountingController.reports");
				assertThat(observation.getAllKeyValues().stream().map(KeyValue::getValue))
					.noneMatch((value) -> value.contains("10.0.0.1"));
			});
			assertThat(observed)
				.extracting((observation) -> observation.getLowCardinalityKeyValue("limiter.result").getValue())
				.containsExactly("allowed", "rejected");
		});
	}

	@Test
	void limiterShadowWatchesEveryLimit() {
		this.contextRunner.withPropertyValues("limiter.shadow=true").run((context) -> {
			MockMvc mvc = mvc(context);
			assertThat(statuses(mvc, get("/reports").param("tier", "public"), get("/reports").param("tier", "public"),
					get("/reports").param("tier", "public")))
				.containsExactly(200, 200, 200);
		});
	}

	private static List<Integer> statuses(MockMvc mvc, MockHttpServletRequestBuilder... requests) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (MockHttpServletRequestBuilder request : requests) {
			statuses.add(WebTests.call(mvc, request).getStatus());
		}
		return statuses;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class CountingConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		CountingController countingController() {
			return new CountingController();
		}

	}

	@RestController
	static class CountingController {

		@RateLimit(threshold = 3, refundOn = UpstreamDown.class)
		@GetMapping("/upstream")
		String upstream(@RequestParam(defaultValue = "false") boolean fail,
				@RequestParam(defaultValue = "false") boolean bad,
				@RequestParam(defaultValue = "false") boolean crash) {
			if (crash) {
				throw new Crash();
			}
			if (fail) {
				throw new UpstreamDown();
			}
			if (bad) {
				throw new BadInput();
			}
			return "ok";
		}

		@RateLimit(threshold = 1, condition = "#tier != 'internal'")
		@GetMapping("/reports")
		String reports(@RequestParam String tier) {
			return tier;
		}

		@RateLimit(threshold = 2, period = 1, maxWait = "5s")
		@GetMapping("/queued")
		String queued() {
			return "served";
		}

		@RateLimit(threshold = 1, period = 1, maxWait = "2s")
		@GetMapping("/turn")
		String turn() {
			return "ok";
		}

		@RateLimit(threshold = 1, period = 10, maxWait = "100ms")
		@GetMapping("/impatient")
		String impatient() {
			return "ok";
		}

		@RateLimit(name = "api", threshold = 1, key = "#user", plan = "#tier")
		@GetMapping("/api")
		String api(@RequestParam String user, @RequestParam String tier) {
			return user;
		}

		@RateLimit(name = "shadowed", threshold = 2, shadow = true)
		@GetMapping("/shadowed")
		String shadowed() {
			return "ok";
		}

		// A limit tried beside the enforced one, over the same window.
		@RateLimit(threshold = 4, period = 60)
		@RateLimit(name = "trial", threshold = 2, period = 60, shadow = true)
		@GetMapping("/trial")
		String trial() {
			return "ok";
		}

	}

	@ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
	static class UpstreamDown extends RuntimeException {

	}

	@ResponseStatus(HttpStatus.INTERNAL_SERVER_ERROR)
	static class Crash extends RuntimeException {

	}

	@ResponseStatus(HttpStatus.BAD_REQUEST)
	static class BadInput extends RuntimeException {

	}

}
