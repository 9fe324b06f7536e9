package dev.limiter;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.limiter.test.PublicApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of limiter-core is the checked-in listing {@code api/limiter-core.api}:
 * a change to it is a change on purpose, made with {@code -Dlimiter.api.update=true} and
 * reviewed.
 */
class PublicApiTests {

	@Test
	void thePublicApiIsTheCheckedInListing() {
		assertThat(PublicApi.differences(Path.of("target/classes"), Path.of("api/limiter-core.api")))
			.as("The public API of limiter-core changed. If on purpose, run ./mvnw -pl limiter-core -am test "
					+ "-Dtest=PublicApiTests -Dsurefire.failIfNoSpecifiedTests=false -Dlimiter.api.update=true "
					+ "and commit api/limiter-core.api and api/limiter-core-internal.api")
			.isEmpty();
	}

	@Test
	void theEngineKeepsAtMostEighteenApiTypes() {
		// Seventeen since the rejection cache left RateLimiter for a side interface of
		// its own (RejectionCache), and the stores became facades over their engines
		// (ForwardingRateLimiter), which the store's decorators share; eighteen with
		// CostExceedsLimitException, the one refusal of a call that can never pass,
		// which a caller catches apart from a refusal that passes later.
		assertThat(PublicApi.apiTypes(PublicApi.listing(Path.of("target/classes")))).isLessThanOrEqualTo(18);
	}

	@Test
	void noApiTypeExtendsOrImplementsAnInternalType() {
		assertThat(PublicApi.apiTypesOnInternalTypes(PublicApi.listing(Path.of("target/classes")))).isEmpty();
	}

}
