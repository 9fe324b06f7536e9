package dev.limiter.ai;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.limiter.test.PublicApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of limiter-spring-ai is the checked-in listing
 * {@code api/limiter-spring-ai.api}: a change to it is a change on purpose, made with
 * {@code -Dlimiter.api.update=true} and reviewed.
 */
class PublicApiTests {

	@Test
	void thePublicApiIsTheCheckedInListing() {
		assertThat(PublicApi.differences(Path.of("target/classes"), Path.of("api/limiter-spring-ai.api")))
			.as("The public API of limiter-spring-ai changed. If on purpose, run ./mvnw -pl limiter-spring-ai -am test "
					+ "-Dtest=PublicApiTests -Dsurefire.failIfNoSpecifiedTests=false -Dlimiter.api.update=true "
					+ "and commit api/limiter-spring-ai.api and api/limiter-spring-ai-internal.api")
			.isEmpty();
	}

	@Test
	void noApiTypeExtendsOrImplementsAnInternalType() {
		assertThat(PublicApi.apiTypesOnInternalTypes(PublicApi.listing(Path.of("target/classes")))).isEmpty();
	}

}
