package dev.limiter.grpc;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.limiter.test.PublicApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of limiter-grpc is the checked-in listing {@code api/limiter-grpc.api}:
 * a change to it is a change on purpose, made with {@code -Dlimiter.api.update=true} and
 * reviewed.
 */
class PublicApiTests {

	@Test
	void thePublicApiIsTheCheckedInListing() {
		assertThat(PublicApi.differences(Path.of("target/classes"), Path.of("api/limiter-grpc.api")))
			.as("The public API of limiter-grpc changed. If on purpose, run ./mvnw -pl limiter-grpc -am test "
					+ "-Dtest=PublicApiTests -Dsurefire.failIfNoSpecifiedTests=false -Dlimiter.api.update=true "
					+ "and commit api/limiter-grpc.api and api/limiter-grpc-internal.api")
			.isEmpty();
	}

	@Test
	void noApiTypeExtendsOrImplementsAnInternalType() {
		assertThat(PublicApi.apiTypesOnInternalTypes(PublicApi.listing(Path.of("target/classes")))).isEmpty();
	}

}
