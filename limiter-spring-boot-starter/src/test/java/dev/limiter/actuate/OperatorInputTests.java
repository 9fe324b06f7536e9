package dev.limiter.actuate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator or a request sends the endpoint reaches the log on one line, and a
 * caller key that no caller can have is refused.
 */
class OperatorInputTests {

	@Test
	void controlCharactersAreEscapedSoThatNoValueForgesALogLine() {
		assertThat(RateLimitsEndpoint.escaped("u:a\nINFO forged\r\u0007"))
			.isEqualTo("u:a\\u000aINFO forged\\u000d\\u0007");
		assertThat(RateLimitsEndpoint.escaped("u:alice")).isEqualTo("u:alice");
	}

	@Test
	void aCallerKeyWithAControlCharacterOrPastAnyRealKeysLengthIsRefused() {
		assertThat(RateLimitsEndpoint.refusedKey("u:alice")).isNull();
		assertThat(RateLimitsEndpoint.refusedKey("u:a\nb")).contains("control character (\\u000a) at 3");
		assertThat(RateLimitsEndpoint.refusedKey("u:" + "x".repeat(10_000))).contains("10002 characters");
	}

}
