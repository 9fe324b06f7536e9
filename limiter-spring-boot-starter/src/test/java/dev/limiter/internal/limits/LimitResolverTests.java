package dev.limiter.internal.limits;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.internal.limits.LimitResolver.Spelling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The one limit model: what a named limit adds to a declaration, the defaults, plans,
 * scopes, and the rules every source of limits shares.
 */
class LimitResolverTests {

	private final LimitResolver resolver = new LimitResolver(
			Map.of("search",
					new LimitAttributes("search", 30L, Duration.ofMinutes(1), Algorithm.SLIDING_BUCKETS, 6, null, null,
							null, Map.of("pro", new LimitAttributes.Plan(300L, null))),
					"watched",
					new LimitAttributes("watched", 5L, Duration.ofSeconds(1), null, null, null, null, true, Map.of())),
			Algorithm.TOKEN_BUCKET, false);

	@Test
	void theNamedLimitWinsOverTheDeclarationAndTheDeclarationFillsTheRest() {
		ResolvedLimit limit = this.resolver.resolve(
				declared("search", 2L, Duration.ofSeconds(10), null, FailurePolicy.FAIL_CLOSED), Spelling.ANNOTATION);
		assertThat(limit.limit()).isEqualTo(Limit.of("search", 30, Duration.ofMinutes(1))
			.withAlgorithm(Algorithm.SLIDING_BUCKETS)
			.withSlices(6)
			.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(limit.shadow()).isFalse();
	}

	@Test
	void aCalendarCountsTheLimitWhateverTheDefaultAlgorithmAndTheConfigurationGivesItWithoutAPeriod() {
		LimitResolver resolver = new LimitResolver(Map.of("tokens",
				new LimitAttributes("tokens", 1_000L, null, null, null, null, null, null,
						Map.of("pro", new LimitAttributes.Plan(5_000L, Duration.ofMinutes(5))), "day",
						"Europe/Berlin")),
				Algorithm.TOKEN_BUCKET, false);
		ResolvedLimit limit = resolver.resolve(declared("tokens", null, Duration.ofSeconds(60), null, null),
				Spelling.ANNOTATION);
		Limit daily = Limit.of("tokens", 1_000, Duration.ofDays(1))
			.withCalendar(java.time.temporal.ChronoUnit.DAYS, java.time.ZoneId.of("Europe/Berlin"));
		assertThat(limit.limit()).isEqualTo(daily);
		assertThat(limit.forPlan("pro")).as("a plan's period changes no calendar")
			.isEqualTo(daily.withThreshold(5_000));
		ResolvedLimit utc = this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60), null, null, null,
				null, null, Map.of(), "Month", null), Spelling.ANNOTATION);
		assertThat(utc.limit().calendar()).isEqualTo(java.time.temporal.ChronoUnit.MONTHS);
		assertThat(utc.limit().zone()).isEqualTo(java.time.ZoneOffset.UTC);
	}

	@Test
	void aCalendarOrZoneThatIsNoneOrGivenWithoutTheOtherNamesTheAttributeToFix() {
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60), null, null,
					null, null, null, Map.of(), "fortnight", null), Spelling.ANNOTATION))
			.withMessageContaining("calendar 'fortnight' is not a calendar")
			.satisfies((ex) -> assertThat(ex.getFix())
				.isEqualTo("Set calendar (or limiter.limits.<name>.calendar) to minute, hour, day, week or month."));
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60), null, null,
					null, null, null, Map.of(), "day", "Mars/Olympus"), Spelling.PROPERTY))
			.withMessageContaining("zone 'Mars/Olympus' is not a time zone")
			.satisfies((ex) -> assertThat(ex.getFix()).startsWith("Set limiter.limits.<name>.zone to an IANA zone id"));
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60), null, null,
					null, null, null, Map.of(), null, "Europe/Berlin"), Spelling.ANNOTATION))
			.withMessageContaining("zone 'Europe/Berlin' is given to limit '' without a calendar");
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60),
					Algorithm.SLIDING_BUCKETS, null, null, null, null, Map.of(), "day", null), Spelling.ANNOTATION))
			.withMessageContaining("calendar 'day' is given to a sliding-buckets limit");
	}

	@Test
	void aPenaltyFromYamlWinsOverTheAnnotationsAndOneOnCallsInFlightNamesWhatToRemove() {
		LimitResolver resolver = new LimitResolver(Map.of("login",
				new LimitAttributes("login", 5L, Duration.ofMinutes(15), Algorithm.SLIDING_BUCKETS, null, null, null,
						null, Map.of(), null, null, Duration.ofHours(1)),
				"exports", new LimitAttributes("exports", 2L, Duration.ofMinutes(1), Algorithm.IN_FLIGHT, null, null,
						null, null, Map.of(), null, null, Duration.ofMinutes(5))),
				Algorithm.SLIDING_LOG, false);
		ResolvedLimit login = resolver.resolve(new LimitAttributes("login", null, null, null, null, null, null, null,
				Map.of(), null, null, Duration.ofMinutes(10)), Spelling.ANNOTATION);
		assertThat(login.limit().penalty()).isEqualTo(Duration.ofHours(1));
		ResolvedLimit declared = this.resolver.resolve(new LimitAttributes("", 3L, Duration.ofSeconds(60), null, null,
				null, null, null, Map.of(), null, null, Duration.ofMinutes(10)), Spelling.ANNOTATION);
		assertThat(declared.limit().penalty()).isEqualTo(Duration.ofMinutes(10));
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> resolver.resolve(declared("exports", null, null, null, null), Spelling.ANNOTATION))
			.withMessageContaining("penalty is given to a limit on calls in flight (limit 'exports')")
			.satisfies((ex) -> assertThat(ex.getFix()).startsWith("Remove limiter.limits.exports.penalty: "));
	}

	@Test
	void aZoneOrACalendarFromYamlThatCannotApplyNamesTheProperty() {
		LimitResolver resolver = new LimitResolver(Map.of("berlin",
				new LimitAttributes("berlin", 5L, Duration.ofMinutes(1), null, null, null, null, null, Map.of(), null,
						"Europe/Berlin"),
				"daily", new LimitAttributes("daily", 5L, null, Algorithm.TOKEN_BUCKET, null, null, null, null,
						Map.of(), "day", null)),
				Algorithm.SLIDING_LOG, false);
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> resolver.resolve(declared("berlin", null, null, null, null), Spelling.ANNOTATION))
			.withMessageContaining("without a calendar (limiter.limits.berlin.zone)")
			.satisfies((ex) -> assertThat(ex.getFix()).isEqualTo("A zone draws a calendar's boundaries: set "
					+ "limiter.limits.berlin.calendar (minute, hour, day, week or month), or remove "
					+ "limiter.limits.berlin.zone."));
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> resolver.resolve(declared("daily", null, null, null, null), Spelling.ANNOTATION))
			.withMessageContaining("token-bucket limit 'daily' (limiter.limits.daily.calendar)")
			.satisfies((ex) -> assertThat(ex.getFix()).isEqualTo("A calendar counts its own windows: remove the "
					+ "algorithm (limiter.limits.daily.algorithm), or remove limiter.limits.daily.calendar."));
	}

	@Test
	void anUnnamedLimitTakesTheDefaultAlgorithm() {
		ResolvedLimit limit = this.resolver.resolve(declared("", 2L, Duration.ofSeconds(10), null, null),
				Spelling.ANNOTATION);
		assertThat(limit.limit()).isEqualTo(Limit.of(2, Duration.ofSeconds(10)).withAlgorithm(Algorithm.TOKEN_BUCKET));
	}

	@Test
	void aPlanKeepsTheLimitsSettingsWithItsOwnNumbers() {
		ResolvedLimit limit = this.resolver.resolve(declared("search", null, Duration.ofSeconds(60), null, null),
				Spelling.ANNOTATION);
		assertThat(limit.forPlan("pro")).isEqualTo(
				Limit.of("search", 300, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS).withSlices(6));
		assertThat(limit.forPlan("unknown")).isSameAs(limit.limit());
	}

	@Test
	void theConfiguredShadowWinsAndEverySourceFollowsTheDefaultShadow() {
		LimitResolver shadowing = new LimitResolver(this.resolver.named(), Algorithm.SLIDING_LOG, true);
		assertThat(shadowing.resolve(declared("", 1L, Duration.ofSeconds(1), null, null), Spelling.ANNOTATION).shadow())
			.isTrue();
		assertThat(
				shadowing.resolveOwn(declared("route", 1L, Duration.ofSeconds(1), null, null), Spelling.ROUTE).shadow())
			.isTrue();
		assertThat(this.resolver.resolveOwn(declared("route", 1L, Duration.ofSeconds(1), null, null), Spelling.FILTER)
			.shadow()).isFalse();
		assertThat(this.resolver.resolve(declared("watched", null, null, null, null), Spelling.ROUTE).shadow())
			.isTrue();
	}

	@Test
	void aRouteLimitIsNotCompletedByANamedLimitOfTheSameName() {
		ResolvedLimit own = this.resolver.resolveOwn(declared("search", 7L, Duration.ofSeconds(7), null, null),
				Spelling.ROUTE);
		assertThat(own.limit())
			.isEqualTo(Limit.of("search", 7, Duration.ofSeconds(7)).withAlgorithm(Algorithm.TOKEN_BUCKET));
	}

	@Test
	void slicesOnAnotherAlgorithmAreRefusedInTheWordsOfTheSource() {
		assertThatExceptionOfType(InvalidLimitException.class).isThrownBy(
				() -> this.resolver.resolve(declared("", 10L, Duration.ofSeconds(1), 10, null), Spelling.ANNOTATION))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).startsWith("slices = 10 is given to a token-bucket limit");
				assertThat(ex.getFix()).contains("algorithm = Algorithm.SLIDING_BUCKETS");
			});
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(
					() -> this.resolver.resolveOwn(declared("r", 10L, Duration.ofSeconds(1), 10, null), Spelling.ROUTE))
			.satisfies((ex) -> assertThat(ex.getFix()).endsWith("set the algorithm to sliding-buckets."));
	}

	@Test
	void anUndefinedNameWithoutAThresholdIsRefused() {
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(declared("daily", null, Duration.ofSeconds(1), null, null),
					Spelling.ANNOTATION))
			.satisfies((ex) -> assertThat(ex.getProblem())
				.isEqualTo("limit 'daily' is not defined under limiter.limits and the annotation gives no threshold"));
		assertThatExceptionOfType(InvalidLimitException.class)
			.isThrownBy(() -> this.resolver.resolve(declared("daily", null, null, null, null), Spelling.ROUTE))
			.satisfies((ex) -> assertThat(ex.getFix()).contains("limiter.limits.daily.period"));
	}

	@Test
	void permitsMustFitTheSmallestLimit() {
		assertThatExceptionOfType(InvalidLimitException.class).isThrownBy(
				() -> LimitResolver.checkPermits(3, List.of(Limit.of(2, Duration.ofSeconds(1))), Spelling.ANNOTATION))
			.satisfies((ex) -> assertThat(ex.getFix()).startsWith("Lower permits"));
	}

	@Test
	void limitsThatShareOneNameShareItsScope() {
		assertThat(LimitResolver.scope(List.of("search", "search"), "m:x")).isEqualTo("n:search");
		assertThat(LimitResolver.scope(List.of("search", ""), "m:x")).isEqualTo("m:x");
		assertThat(LimitResolver.scope(List.of(""), "r:orders")).isEqualTo("r:orders");
		assertThat(LimitResolver.scope(List.of("a:b"), "m:x")).startsWith("n:#");
	}

	private static LimitAttributes declared(String name, Long threshold, Duration period, Integer slices,
			FailurePolicy policy) {
		return new LimitAttributes(name, threshold, period, null, slices, policy, null, null, Map.of());
	}

}
