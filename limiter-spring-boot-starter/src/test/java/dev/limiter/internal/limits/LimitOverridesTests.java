package dev.limiter.internal.limits;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.limiter.Limit;
import dev.limiter.internal.limits.LimitOverrides.NamedOverride;
import dev.limiter.internal.limits.LimitOverrides.Numbers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which numbers a call gets under the overrides: a caller's own, else its plan's, else
 * its named limit's, and nothing when none applies.
 */
class LimitOverridesTests {

	private final LimitOverrides overrides = new LimitOverrides();

	private final Limit search = Limit.of("search", 10, Duration.ofMinutes(1));

	private final Limit other = Limit.of("other", 20, Duration.ofMinutes(1));

	@Test
	void withoutOverridesACallKeepsItsVeryLimits() {
		List<Limit> limits = List.of(this.search, this.other);
		assertThat(this.overrides.isEmpty()).isTrue();
		assertThat(this.overrides.apply(limits, null, false, "n:search:u:alice")).isSameAs(limits);
	}

	@Test
	void aNamedOverrideChangesThatLimitOnly() {
		this.overrides.replace(Map.of("search", new NamedOverride(new Numbers(100L, Duration.ofHours(1)), Map.of())),
				Map.of());
		List<Limit> applied = this.overrides.apply(List.of(this.search, this.other), null, false, "k");
		assertThat(applied).containsExactly(this.search.withThreshold(100).withPeriod(Duration.ofHours(1)), this.other);
	}

	@Test
	void aCallersNumbersComeFirstThenThePlansThenTheLimits() {
		this.overrides.replace(
				Map.of("search", new NamedOverride(new Numbers(100L, null), Map.of("pro", new Numbers(500L, null)))),
				Map.of("search", Map.of("n:search:u:alice", new Numbers(7L, null))));
		assertThat(this.overrides.apply(List.of(this.search), "pro", true, "n:search:u:alice"))
			.containsExactly(this.search.withThreshold(7));
		assertThat(this.overrides.apply(List.of(this.search), "pro", true, "n:search:u:bob"))
			.containsExactly(this.search.withThreshold(500));
		assertThat(this.overrides.apply(List.of(this.search), null, false, "n:search:u:bob"))
			.containsExactly(this.search.withThreshold(100));
	}

	@Test
	void aConfiguredPlanKeepsItsNumbersUnderAnOverrideOfTheLimitsOwn() {
		this.overrides.replace(Map.of("search", new NamedOverride(new Numbers(100L, null), Map.of())), Map.of());
		List<Limit> planned = List.of(this.search.withThreshold(50));
		assertThat(this.overrides.apply(planned, "gold", true, "k")).isSameAs(planned);
		assertThat(this.overrides.apply(planned, "unknown", false, "k"))
			.containsExactly(this.search.withThreshold(100));
	}

	@Test
	void everyChangeIsAnnouncedAndEmptyCallerMapsAreDropped() {
		AtomicInteger changes = new AtomicInteger();
		this.overrides.onChange(changes::incrementAndGet);
		this.overrides.replace(Map.of(), Map.of("search", Map.of()));
		assertThat(changes).hasValue(1);
		assertThat(this.overrides.isEmpty()).isTrue();
	}

}
