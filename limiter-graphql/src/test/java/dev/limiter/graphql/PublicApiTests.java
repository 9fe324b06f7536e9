package dev.limiter.graphql;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.limiter.test.PublicApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of limiter-graphql is the checked-in listing
 * {@code api/limiter-graphql.api}: a change to it is a change on purpose, made with
 * {@code -Dlimiter.api.update=true} and reviewed.
 */
class PublicApiTests {

	@Test
	void thePublicApiIsTheCheckedInListing() {
		assertThat(PublicApi.differences(Path.of("target/classes"), Path.of("api/limiter-graphql.api")))
			.as("The public API of limiter-graphql changed. If on purpose, run ./mvnw -pl limiter-graphql -am test "
					+ "-Dtest=PublicApiTests -Dsurefire.failIfNoSpecifiedTests=false -Dlimiter.api.update=true "
					+ "and commit api/limiter-graphql.api and api/limiter-graphql-internal.api")
			.isEmpty();
	}

	@Test
	void noApiTypeExtendsOrImplementsAnInternalType() {
		assertThat(PublicApi.apiTypesOnInternalTypes(PublicApi.listing(Path.of("target/classes")))).isEmpty();
	}

}
