package dev.limiter;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimitTests {

	@Test
	void createsNamedLimit() {
		Limit limit = Limit.of(2, Duration.ofSeconds(30)).named("login");
		assertThat(limit.name()).isEqualTo("login");
		assertThat(limit.threshold()).isEqualTo(2);
		assertThat(limit.period()).isEqualTo(Duration.ofSeconds(30));
		assertThat(limit.periodMicros()).isEqualTo(30_000_000L);
		assertThat(limit).hasToString("'login' (2 per 30s)");
	}

	@Test
	void aPenaltyIsPartOfTheLimitAndItsText() {
		Limit login = Limit.of("login", 5, Duration.ofMinutes(15)).withPenalty(Duration.ofHours(1));
		assertThat(login.penalty()).isEqualTo(Duration.ofHours(1));
		assertThat(login.penaltyMicros()).isEqualTo(3_600_000_000L);
		assertThat(login).hasToString("'login' (5 per 15m, penalty 1h)");
		assertThat(login).isNotEqualTo(login.withPenalty(Duration.ZERO));
		assertThat(login.withThreshold(6).penalty()).isEqualTo(Duration.ofHours(1));
		assertThat(Limit.of(1, Duration.ofSeconds(1)).penalty()).isZero();
	}

	@Test
	void rejectsAPenaltyOutOfRangeOrOnCallsInFlight() {
		Limit limit = Limit.of("login", 5, Duration.ofMinutes(15));
		assertThatIllegalArgumentException().isThrownBy(() -> limit.withPenalty(Duration.ofSeconds(-1)))
			.withMessage("penalty must be between 0 (none) and 36500 days in whole milliseconds, was PT-1S "
					+ "(limit 'login')");
		assertThatIllegalArgumentException().isThrownBy(() -> limit.withPenalty(null))
			.withMessageStartingWith("penalty must be between 0 (none)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> limit.withAlgorithm(Algorithm.IN_FLIGHT).withPenalty(Duration.ofMinutes(1)))
			.withMessageStartingWith("penalty is given to a limit on calls in flight (limit 'login')");
	}

	@Test
	void rejectsThresholdOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(0, Duration.ofSeconds(1)))
			.withMessage("threshold must be between 1 and 2147483647, was 0 (limit 'default')");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(-5, Duration.ofSeconds(1)))
			.withMessageStartingWith("threshold must be between 1 and 2147483647, was -5");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(Long.MAX_VALUE, Duration.ofSeconds(1)))
			.withMessageStartingWith("threshold must be between 1 and 2147483647, was 9223372036854775807");
	}

	@Test
	void rejectsPeriodOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, null))
			.withMessage("period must not be null (limit 'default')");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ZERO))
			.withMessage("period must be between 1ms and 36500 days, was PT0S (limit 'default')");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ofSeconds(-1)))
			.withMessageStartingWith("period must be between 1ms and 36500 days, was PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ofNanos(999_999)))
			.withMessageStartingWith("period must be between 1ms and 36500 days");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ofDays(36_501)))
			.withMessageStartingWith("period must be between 1ms and 36500 days");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ofNanos(1_500_000)))
			.withMessage("period must be a whole number of milliseconds, was PT0.0015S (limit 'default')");
	}

	@Test
	void acceptsTheExtremes() {
		assertThat(Limit.of(Limit.MAX_THRESHOLD, Limit.MAX_PERIOD).periodMicros())
			.isEqualTo(36_500L * 86_400 * 1_000_000);
		assertThat(Limit.of(1, Limit.MIN_PERIOD).periodMicros()).isEqualTo(1_000);
	}

	@Test
	void rejectsBlankName() {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(1, Duration.ofSeconds(1)).named(" "))
			.withMessage("name must not be null or blank");
	}

	@Test
	void sharesWindowRegardlessOfName() {
		Limit limit = Limit.of(3, Duration.ofSeconds(1));
		assertThat(limit.sameWindowAs(limit.named("other"))).isTrue();
		assertThat(limit).isNotEqualTo(limit.named("other"));
		assertThat(limit.sameWindowAs(Limit.of(3, Duration.ofSeconds(2)))).isFalse();
	}

	@Test
	void sharesWindowWhateverTheThreshold() {
		Limit limit = Limit.of(3, Duration.ofSeconds(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS).withSlices(10);
		assertThat(limit.sameWindowAs(limit.withThreshold(7))).isTrue();
		assertThat(limit.withThreshold(7)).isNotEqualTo(limit);
		assertThat(limit.withThreshold(7).threshold()).isEqualTo(7);
		assertThat(limit.sameWindowAs(limit.withSlices(20))).isFalse();
		assertThat(limit.sameWindowAs(limit.withAlgorithm(Algorithm.TOKEN_BUCKET))).isFalse();
	}

	@Test
	void aCalendarLimitSharesItsWindowWithTheSameCalendarAndZoneOnly() {
		Limit day = Limit.of("budget", 1_000, Duration.ofSeconds(5))
			.withCalendar(java.time.temporal.ChronoUnit.DAYS, java.time.ZoneId.of("Europe/Berlin"));
		assertThat(day.algorithm()).isEqualTo(Algorithm.CALENDAR);
		assertThat(day.period()).as("the usual length, for headers").isEqualTo(Duration.ofDays(1));
		assertThat(day.withPeriod(Duration.ofMinutes(3)).period()).as("a calendar's period plays no part")
			.isEqualTo(Duration.ofDays(1));
		assertThat(day.periodText()).isEqualTo("day");
		assertThat(day).hasToString("'budget' (1000 per day, calendar in Europe/Berlin)");
		assertThat(day.sameWindowAs(day.withThreshold(5))).isTrue();
		assertThat(day.sameWindowAs(day.withCalendar(java.time.temporal.ChronoUnit.DAYS, null))).isFalse();
		assertThat(day.withCalendar(java.time.temporal.ChronoUnit.MONTHS, null).zone())
			.isEqualTo(java.time.ZoneOffset.UTC);
		assertThat(day.withAlgorithm(Algorithm.TOKEN_BUCKET).calendar()).isNull();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> day.withCalendar(java.time.temporal.ChronoUnit.SECONDS, null))
			.withMessage("calendar must be one of minute, hour, day, week and month, was Seconds (limit 'budget')");
	}

}
