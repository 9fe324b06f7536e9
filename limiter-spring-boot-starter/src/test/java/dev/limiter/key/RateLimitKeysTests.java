package dev.limiter.key;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitKeys}.
 */
class RateLimitKeysTests {

	@Test
	void shortPlainPartIsKept() {
		assertThat(RateLimitKeys.bounded("alice")).isEqualTo("alice");
		assertThat(RateLimitKeys.bounded("{alice}")).isEqualTo("{alice}");
	}

	@Test
	void longPartIsHashed() {
		String bounded = RateLimitKeys.bounded("x".repeat(65));
		assertThat(bounded).startsWith("#").hasSize(44);
		assertThat(RateLimitKeys.bounded("x".repeat(65))).isEqualTo(bounded);
		assertThat(RateLimitKeys.bounded("x".repeat(66))).isNotEqualTo(bounded);
	}

	@Test
	void separatorsAndControlCharactersAreHashed() {
		assertThat(RateLimitKeys.bounded("a:b")).startsWith("#").doesNotContain(":");
		assertThat(RateLimitKeys.bounded("a\nb")).startsWith("#");
		// A part that looks like a hash is hashed too, so the two forms never meet.
		assertThat(RateLimitKeys.bounded("#abc")).isNotEqualTo("#abc");
	}

	@Test
	void methodKeyNamesClassAndMethod() throws NoSuchMethodException {
		assertThat(RateLimitKeys.methodKey(String.class.getMethod("trim"), String.class))
			.isEqualTo("m:java.lang.String.trim");
	}

}
