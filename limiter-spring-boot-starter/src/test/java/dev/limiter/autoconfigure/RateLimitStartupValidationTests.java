package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ReflectionUtils;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.memory.InMemoryRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one home of startup validation: every {@code @RateLimit} and {@code limiter.*}
 * setting out of range stops the start with a message that names the method or the
 * property and what to fix (from the failure analyzers); in range is accepted as it is.
 */
class RateLimitStartupValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	static Stream<Arguments> badAnnotations() {
		return Stream.of(
				Arguments.of(NegativeThreshold.class, "threshold must be between 1 and 2147483647, was -1",
						"Set threshold"),
				Arguments.of(MaxLongThreshold.class,
						"threshold must be between 1 and 2147483647, was 9223372036854775807", "Set threshold"),
				Arguments.of(AboveIntThreshold.class, "threshold must be between 1 and 2147483647, was 2147483648",
						"Set threshold"),
				Arguments.of(NegativePeriod.class, "period must be between 1ms and 36500 days, was PT-5S",
						"Set period"),
				Arguments.of(MaxLongSeconds.class, "period must be between 1ms and 36500 days", "Set period"),
				Arguments.of(MaxLongDays.class, "period 9223372036854775807 DAYS does not fit in a Duration",
						"Set period to a positive window of at most 36500 days"),
				Arguments.of(SubMillisecondPeriod.class, "period must be between 1ms and 36500 days, was PT0.0005S",
						"Set period"),
				Arguments.of(FractionalMilliseconds.class, "period must be a whole number of milliseconds",
						"Set period"),
				Arguments.of(OverAHundredYears.class, "period must be between 1ms and 36500 days, was PT876024H",
						"Set period"),
				Arguments.of(ZeroPermits.class, "permits must be between 1 and the smallest threshold",
						"Lower permits"),
				Arguments.of(TwoFailurePolicies.class, "failurePolicy has 2 values [FAIL_OPEN, FAIL_CLOSED]",
						"Give failurePolicy at most one value"),
				Arguments.of(NegativeLocalThreshold.class, "localThreshold must be between 0 (the threshold)",
						"Set localThreshold"),
				Arguments.of(MaxLongLocalThreshold.class, "was 9223372036854775807", "Set localThreshold"),
				Arguments.of(ZeroSlices.class, "slices must be between 1 and 3600, was 0", "Set slices"),
				Arguments.of(TooManySlices.class, "slices must be between 1 and 3600, was 3601", "Set slices"),
				Arguments.of(SlicesOnATokenBucket.class, "slices = 10 is given to a token-bucket limit",
						"Slices cut a sliding-buckets window"),
				Arguments.of(ChargeOnASlidingLog.class, "charge '#result' is given to the sliding-log limit",
						"Count a charged limit with algorithm = Algorithm.SLIDING_BUCKETS"),
				Arguments.of(TwoCharges.class, "give different charges ['#result', '#result * 2']",
						"Give every @RateLimit that applies to the method the same charge"),
				Arguments.of(ChargeOnAMissingParameter.class, "charge '#tokens' refers to #tokens",
						"Refer to a parameter by its name"),
				Arguments.of(NotACalendar.class, "calendar 'fortnight' is not a calendar",
						"Set calendar (or limiter.limits.<name>.calendar) to minute, hour, day, week or month."),
				Arguments.of(NotAZone.class, "zone 'Mars/Olympus' is not a time zone",
						"Set zone (or limiter.limits.<name>.zone) to an IANA zone id"),
				Arguments.of(ConditionOnAMissingParameter.class, "condition '#tier == 1' refers to #tier",
						"Refer to a parameter by its name"),
				Arguments.of(MaxWaitNotADuration.class, "maxWait 'soon' is not a duration between 0 and 60s",
						"Set maxWait"),
				Arguments.of(NegativeMaxWait.class, "maxWait '-1s' is not a duration", "Set maxWait"),
				Arguments.of(PenaltyNotADuration.class, "penalty 'an hour' is not a duration", "Set penalty"),
				Arguments.of(HugePenalty.class, "penalty must be between 0 (none) and 36500 days",
						"Set penalty (or limiter.limits.<name>.penalty) to how long a rejected caller stays refused"),
				Arguments.of(PenaltyOnCallsInFlight.class, "penalty is given to a limit on calls in flight",
						"Remove penalty (or limiter.limits.<name>.penalty): "),
				Arguments.of(PlanWithoutPlans.class, "plan ''pro'' is given, but no limit of the method has plans",
						"Define the plans under limiter.limits"),
				Arguments.of(TwoAlgorithms.class, "algorithm has 2 values [SLIDING_LOG, TOKEN_BUCKET]",
						"Give algorithm at most one value"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badAnnotations")
	void badAnnotationStopsStartup(Class<?> configuration, String problem, String fix) {
		this.contextRunner.withUserConfiguration(configuration).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidRateLimitFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains(configuration.getName() + ".call()").contains(problem);
			assertThat(analysis.getAction()).startsWith(fix);
		});
	}

	@Test
	void annotationAtTheLimitsIsAccepted() {
		this.contextRunner.withUserConfiguration(AtTheLimits.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Limit limit = limit(context.getBean(RateLimitOperationSource.class), AtTheLimits.class);
			assertThat(limit.threshold()).isEqualTo(Limit.MAX_THRESHOLD);
			assertThat(limit.period()).isEqualTo(Duration.ofDays(36_500));
			assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.LOCAL);
			assertThat(limit.localThreshold()).isEqualTo(Limit.MAX_THRESHOLD);
		});
	}

	@Test
	void oneMillisecondIsAccepted() {
		this.contextRunner.withUserConfiguration(OneMillisecond.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(limit(context.getBean(RateLimitOperationSource.class), OneMillisecond.class).period())
				.isEqualTo(Duration.ofMillis(1));
		});
	}

	static Stream<Arguments> badProperties() {
		return Stream.of(Arguments.of("threshold=0", "limiter.limits.x.threshold", "was 0"),
				Arguments.of("threshold=-1", "limiter.limits.x.threshold", "was -1"),
				Arguments.of("threshold=9223372036854775807", "limiter.limits.x.threshold", "was 9223372036854775807"),
				Arguments.of("threshold=9223372036854775808", "limiter.limits.x.threshold", "Failed to bind"),
				Arguments.of("period=0s", "limiter.limits.x.period", "was PT0S"),
				Arguments.of("period=-1s", "limiter.limits.x.period", "was PT-1S"),
				Arguments.of("period=500us", "limiter.limits.x.period", "was PT0.0005S"),
				Arguments.of("period=1500us", "limiter.limits.x.period", "whole number of milliseconds"),
				Arguments.of("period=36501d", "limiter.limits.x.period", "was PT876024H"),
				Arguments.of("period=9223372036854775807d", "limiter.limits.x.period", "Failed to bind"),
				Arguments.of("local-threshold=-1", "limiter.limits.x.local-threshold", "was -1"),
				Arguments.of("failure-policy=sometimes", "limiter.limits.x.failure-policy", "Failed to bind"),
				Arguments.of("algorithm=fixed-window", "limiter.limits.x.algorithm", "Failed to bind"),
				Arguments.of("penalty=-1s", "limiter.limits.x.penalty", "was PT-1S"),
				Arguments.of("penalty=36501d", "limiter.limits.x.penalty", "was PT876024H"),
				Arguments.of("penalty=soon", "limiter.limits.x.penalty", "Failed to bind"),
				Arguments.of("slices=0", "limiter.limits.x.slices", "was 0"),
				Arguments.of("slices=3601", "limiter.limits.x.slices", "was 3601"),
				Arguments.of("slices=sixty", "limiter.limits.x.slices", "Failed to bind"),
				Arguments.of("shadow=maybe", "limiter.limits.x.shadow", "Failed to bind"),
				Arguments.of("protects=everything", "limiter.limits.x.protects", "Failed to bind"),
				Arguments.of("algorithm=in-flights", "limiter.limits.x.algorithm", "Failed to bind"),
				Arguments.of("plans.pro.threshold=0", "limiter.limits.x.plans.pro.threshold", "was 0"),
				Arguments.of("plans.pro.period=10s", "limiter.limits.x.plans.pro.threshold",
						"Give every plan a threshold"),
				Arguments.of("plans.pro.period=-1s", "limiter.limits.x.plans.pro", "Give every plan a threshold"));
	}

	@ParameterizedTest(name = "limiter.limits.x.{0}")
	@MethodSource("badProperties")
	void badPropertyStopsStartupNamingTheProperty(String property, String name, String problem) {
		this.contextRunner.withPropertyValues("limiter.limits.x." + property)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(name)
				.hasStackTraceContaining(problem));
	}

	static Stream<Arguments> badSettings() {
		return Stream.of(Arguments.of("limiter.enabled=maybe", "limiter.enabled"),
				Arguments.of("limiter.store=sometimes", "limiter.store"),
				Arguments.of("limiter.count-rejected=maybe", "limiter.count-rejected"),
				Arguments.of("limiter.clock=sundial", "limiter.clock"),
				Arguments.of("limiter.aspect-order=first", "limiter.aspect-order"),
				Arguments.of("limiter.timeout=soon", "limiter.timeout"),
				Arguments.of("limiter.timeout=-1s", "limiter.timeout"),
				Arguments.of("limiter.failure.policy=sometimes", "limiter.failure.policy"),
				Arguments.of("limiter.failure.status=500", "limiter.failure.status"),
				Arguments.of("limiter.breaker.failure-threshold=0", "limiter.breaker.failure-threshold"),
				Arguments.of("limiter.breaker.open-duration=-1s", "limiter.breaker.open-duration"),
				Arguments.of("limiter.rejection-cache.enabled=maybe", "limiter.rejection-cache.enabled"),
				Arguments.of("limiter.rejection-cache.maximum-size=0", "limiter.rejection-cache.maximum-size"),
				Arguments.of("limiter.rejection-cache.before-arguments=maybe",
						"limiter.rejection-cache.before-arguments"),
				Arguments.of("limiter.local-cache.enabled=maybe", "limiter.local-cache.enabled"),
				Arguments.of("limiter.local-cache.maximum-size=0", "limiter.rejection-cache.maximum-size"),
				Arguments.of("limiter.memory.maximum-keys=0", "limiter.memory.maximum-keys"),
				Arguments.of("limiter.algorithm=leaky-bucket", "limiter.algorithm"),
				Arguments.of("limiter.shadow=maybe", "limiter.shadow"),
				Arguments.of("limiter.web.headers=all", "limiter.web.headers"),
				Arguments.of("limiter.web.path-style=route", "limiter.web.path-style"),
				Arguments.of("limiter.web.early-rejection=maybe", "limiter.web.early-rejection"),
				Arguments.of("limiter.key-prefix={app}:", "limiter.key-prefix"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badSettings")
	void everyBadSettingStopsStartupNamingTheProperty(String setting, String property) {
		this.contextRunner.withPropertyValues(setting)
			.run((context) -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(property));
	}

	@Test
	void aClientsTokensThatAreNoQuotaStopTheStartNamingTheProperty() {
		String client = "limiter.clients.openai.";
		this.contextRunner
			.withPropertyValues(client + "hosts=api.openai.com", client + "threshold=500", client + "period=1m",
					client + "tokens=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.clients.openai.tokens"));
		this.contextRunner
			.withPropertyValues(client + "hosts=api.openai.com", client + "threshold=5", client + "period=1m",
					client + "algorithm=in-flight", client + "tokens=30000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.clients.openai.tokens")
				.hasStackTraceContaining("Tokens are a quota per time"));
		this.contextRunner
			.withPropertyValues(client + "hosts=api.openai.com", client + "threshold=500", client + "period=1m",
					client + "tokens=30000")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theStoresBoundsDefaultToTheEnginesOwn() {
		LimiterProperties properties = new LimiterProperties();
		assertThat(properties.getMemory().getMaximumKeys()).isEqualTo(InMemoryRateLimiter.DEFAULT_MAXIMUM_KEYS);
		assertThat(properties.getRejectionCache().getMaximumSize())
			.isEqualTo(RejectionCachingRateLimiter.DEFAULT_MAXIMUM_SIZE);
	}

	@Test
	void theMemoryStoreHoldsAtMostTheConfiguredKeys() {
		this.contextRunner.withPropertyValues("limiter.store=memory", "limiter.memory.maximum-keys=2")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				Limit limit = Limit.of(1, Duration.ofMinutes(1));
				assertThat(limiter.acquire("a", limit).isDegraded()).isFalse();
				assertThat(limiter.acquire("b", limit).isDegraded()).isFalse();
				assertThat(limiter.acquire("b", limit).isAllowed()).as("b is in use").isFalse();
				Decision third = limiter.acquire("c", limit);
				assertThat(third.isAllowed()).isTrue();
				assertThat(third.isDegraded()).as("counted").isFalse();
				assertThat(limiter.acquire("c", limit).isAllowed()).isFalse();
				assertThat(limiter.acquire("b", limit).isAllowed()).as("keys in use stay limited").isFalse();
				assertThat(limiter.acquire("a", limit).isAllowed()).as("a, least recently used, was evicted").isTrue();
			});
	}

	@Test
	void badPropertyNamesItsOwnLimitNotTheDefault() {
		this.contextRunner.withPropertyValues("limiter.limits.x.threshold=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.limits.x.threshold")
				.hasStackTraceContaining("(limit 'x')")
				.satisfies(
						(failure) -> assertThat(failure.toString() + failure.getCause()).doesNotContain("'default'")));
	}

	@Test
	void propertiesAtTheLimitsAreAcceptedAndWinOverTheAnnotation() {
		this.contextRunner.withUserConfiguration(Named.class)
			.withPropertyValues("limiter.limits.x.threshold=2147483647", "limiter.limits.x.period=36500d",
					"limiter.limits.x.failure-policy=fail-closed", "limiter.limits.x.local-threshold=0")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Limit limit = limit(context.getBean(RateLimitOperationSource.class), Named.class);
				assertThat(limit.threshold()).isEqualTo(Limit.MAX_THRESHOLD);
				assertThat(limit.period()).isEqualTo(Duration.ofDays(36_500));
				// Over the annotation's LOCAL and 3.
				assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
				assertThat(limit.localThreshold()).isEqualTo(Limit.MAX_THRESHOLD);
			});
	}

	@Test
	void propertiesLeaveTheAnnotationsFailureSettingsWhenUnset() {
		this.contextRunner.withUserConfiguration(Named.class)
			.withPropertyValues("limiter.limits.x.threshold=10")
			.run((context) -> {
				Limit limit = limit(context.getBean(RateLimitOperationSource.class), Named.class);
				assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.LOCAL);
				assertThat(limit.localThreshold()).isEqualTo(3);
			});
	}

	private static Limit limit(RateLimitOperationSource source, Class<?> type) {
		RateLimitOperation operation = source.getOperation(ReflectionUtils.findMethod(type, "call"), type);
		return operation.getLimits().get(0);
	}

	@Test
	void missingThreshold() {
		assertThat(analyze(MissingThreshold.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).isEqualTo("The @RateLimit on " + MissingThreshold.class.getName()
					+ ".call() is invalid: threshold must be between 1 and 2147483647, was 0 (limit 'default').");
			assertThat(analysis.getAction()).startsWith("Set threshold to a value between 1 and 2147483647");
		});
	}

	@Test
	void zeroPeriod() {
		assertThat(analyze(ZeroPeriod.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains(ZeroPeriod.class.getName() + ".call(String)")
				.contains("period must be between 1ms and 36500 days, was PT0S");
			assertThat(analysis.getAction()).startsWith("Set period");
		});
	}

	@Test
	void unknownNameWithoutThreshold() {
		assertThat(analyze(UnknownName.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("limit 'search' is not defined under limiter.limits and the annotation gives no threshold");
			assertThat(analysis.getAction()).contains("limiter.limits.search.threshold");
		});
	}

	@Test
	void nameDefinedInConfigurationCompletesTheAnnotation() {
		this.contextRunner.withUserConfiguration(UnknownName.class)
			.withPropertyValues("limiter.limits.search.threshold=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void keyThatDoesNotParse() {
		assertThat(analyze(BadSyntax.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains(BadSyntax.class.getName() + ".call(String)")
				.contains("key '#user +' is not a valid SpEL expression");
			assertThat(analysis.getAction()).contains("key = \"#user\"");
		});
	}

	@Test
	void keyWithUnknownParameter() {
		assertThat(analyze(UnknownParameter.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("key '#usr' refers to #usr, which is not a parameter of the method (parameters: [user, id])");
			assertThat(analysis.getAction()).contains("compile with -parameters");
		});
	}

	@Test
	void limitsWithDifferentKeys() {
		assertThat(analyze(DifferentKeys.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("give different keys ['', '#user']");
			assertThat(analysis.getAction()).contains("the same key");
		});
	}

	@Test
	void permitsAboveTheThreshold() {
		assertThat(analyze(TooManyPermits.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("permits must be between 1 and the smallest threshold (2), was 3");
			assertThat(analysis.getAction()).contains("Lower permits");
		});
	}

	@Test
	void validAnnotationsStart() {
		this.contextRunner.withUserConfiguration(Valid.class).run((context) -> assertThat(context).hasNotFailed());
	}

	private FailureAnalysis analyze(Class<?> configuration) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.contextRunner.withUserConfiguration(configuration).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = new InvalidRateLimitFailureAnalyzer().analyze(context.getStartupFailure());
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeThreshold {

		@RateLimit(threshold = -1)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MaxLongThreshold {

		@RateLimit(threshold = Long.MAX_VALUE)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AboveIntThreshold {

		@RateLimit(threshold = Integer.MAX_VALUE + 1L)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativePeriod {

		@RateLimit(threshold = 1, period = -5)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MaxLongSeconds {

		@RateLimit(threshold = 1, period = Long.MAX_VALUE)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MaxLongDays {

		@RateLimit(threshold = 1, period = Long.MAX_VALUE, unit = TimeUnit.DAYS)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SubMillisecondPeriod {

		@RateLimit(threshold = 1, period = 500, unit = TimeUnit.MICROSECONDS)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FractionalMilliseconds {

		@RateLimit(threshold = 1, period = 1500, unit = TimeUnit.MICROSECONDS)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OverAHundredYears {

		// 100 years of 365 days, plus one day.
		@RateLimit(threshold = 1, period = 36_501, unit = TimeUnit.DAYS)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroPermits {

		@RateLimit(threshold = 1, permits = 0)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroSlices {

		@RateLimit(threshold = 1, algorithm = Algorithm.SLIDING_BUCKETS, slices = 0)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TooManySlices {

		@RateLimit(threshold = 1, algorithm = Algorithm.SLIDING_BUCKETS, slices = 3601)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlicesOnATokenBucket {

		@RateLimit(threshold = 1, algorithm = Algorithm.TOKEN_BUCKET, slices = 10)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConditionOnAMissingParameter {

		@RateLimit(threshold = 1, condition = "#tier == 1")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MaxWaitNotADuration {

		@RateLimit(threshold = 1, maxWait = "soon")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeMaxWait {

		@RateLimit(threshold = 1, maxWait = "-1s")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PenaltyNotADuration {

		@RateLimit(threshold = 1, penalty = "an hour")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HugePenalty {

		@RateLimit(threshold = 1, penalty = "99999999d")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PenaltyOnCallsInFlight {

		@RateLimit(threshold = 1, algorithm = Algorithm.IN_FLIGHT, penalty = "1m")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlanWithoutPlans {

		@RateLimit(threshold = 1, plan = "'pro'")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoAlgorithms {

		@RateLimit(threshold = 1, algorithm = { Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET })
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoFailurePolicies {

		@RateLimit(threshold = 1, failurePolicy = { FailurePolicy.FAIL_OPEN, FailurePolicy.FAIL_CLOSED })
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ChargeOnASlidingLog {

		@RateLimit(threshold = 1, algorithm = Algorithm.SLIDING_LOG, charge = "#result")
		public long call() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoCharges {

		@RateLimit(threshold = 1, algorithm = Algorithm.TOKEN_BUCKET, charge = "#result")
		@RateLimit(threshold = 5, period = 3600, algorithm = Algorithm.TOKEN_BUCKET, charge = "#result * 2")
		public long call() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ChargeOnAMissingParameter {

		@RateLimit(threshold = 1, algorithm = Algorithm.TOKEN_BUCKET, charge = "#tokens")
		public long call() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotACalendar {

		@RateLimit(threshold = 1, calendar = "fortnight")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotAZone {

		@RateLimit(threshold = 1, calendar = "day", zone = "Mars/Olympus")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NegativeLocalThreshold {

		@RateLimit(threshold = 1, failurePolicy = FailurePolicy.LOCAL, localThreshold = -1)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MaxLongLocalThreshold {

		@RateLimit(threshold = 1, localThreshold = Long.MAX_VALUE)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AtTheLimits {

		@RateLimit(threshold = Integer.MAX_VALUE, period = 36_500, unit = TimeUnit.DAYS,
				failurePolicy = FailurePolicy.LOCAL, localThreshold = Integer.MAX_VALUE)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OneMillisecond {

		@RateLimit(threshold = 1, period = 1, unit = TimeUnit.MILLISECONDS)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Named {

		@RateLimit(name = "x", threshold = 5, failurePolicy = FailurePolicy.LOCAL, localThreshold = 3)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingThreshold {

		@Bean
		MissingThreshold.Service service() {
			return new MissingThreshold.Service();
		}

		@RateLimit(period = 10)
		public void call() {
		}

		static class Service {

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroPeriod {

		@RateLimit(threshold = 2, period = 0, unit = TimeUnit.MINUTES)
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownName {

		@RateLimit(name = "search")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadSyntax {

		@RateLimit(threshold = 2, key = "#user +")
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownParameter {

		@RateLimit(threshold = 2, key = "#usr")
		public void call(String user, long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@RateLimit(threshold = 100)
	static class DifferentKeys {

		@RateLimit(threshold = 2, key = "#user")
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TooManyPermits {

		@RateLimit(threshold = 2, permits = 3)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Valid {

		@RateLimit(threshold = 2, key = "#user.length() > 3 ? #user : #p0 + #request")
		@RateLimit(threshold = 20, period = 1, unit = TimeUnit.HOURS,
				key = "#user.length() > 3 ? #user : #p0 + #request")
		public void call(String user) {
		}

	}

}
