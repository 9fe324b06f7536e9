package dev.limiter;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.limiter.test.PublicApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of limiter-spring-boot-starter is the checked-in listing
 * {@code api/limiter-spring-boot-starter.api}: a change to it is a change on purpose,
 * made with {@code -Dlimiter.api.update=true} and reviewed.
 */
class PublicApiTests {

	@Test
	void thePublicApiIsTheCheckedInListing() {
		assertThat(PublicApi.differences(Path.of("target/classes"), Path.of("api/limiter-spring-boot-starter.api")))
			.as("The public API of limiter-spring-boot-starter changed. If on purpose, run ./mvnw -pl limiter-spring-boot-starter -am test "
					+ "-Dtest=PublicApiTests -Dsurefire.failIfNoSpecifiedTests=false -Dlimiter.api.update=true "
					+ "and commit api/limiter-spring-boot-starter.api and api/limiter-spring-boot-starter-internal.api")
			.isEmpty();
	}

	// 20, and the two that retry budgets need: @RetryBudget and the RetryBudgets bean.
	@Test
	void theStarterKeepsAtMostTwentyTwoApiTypes() {
		assertThat(PublicApi.apiTypes(PublicApi.listing(Path.of("target/classes")))).isLessThanOrEqualTo(22);
	}

	@Test
	void noApiTypeExtendsOrImplementsAnInternalType() {
		assertThat(PublicApi.apiTypesOnInternalTypes(PublicApi.listing(Path.of("target/classes")))).isEmpty();
	}

}
