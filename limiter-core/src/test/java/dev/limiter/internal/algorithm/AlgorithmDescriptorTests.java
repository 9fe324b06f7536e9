package dev.limiter.internal.algorithm;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Every algorithm is fully described: a descriptor, a Lua fragment of its code, a key of
 * its own and an in-memory twin.
 */
class AlgorithmDescriptorTests {

	@Test
	void everyStoredAlgorithmHasADescriptorAFragmentAKeyOfItsOwnAndAWindow() {
		Set<String> suffixes = new HashSet<>();
		assertThat(AlgorithmDescriptor.stored()).doesNotContain(Algorithm.ADAPTIVE)
			.containsExactly(java.util.Arrays.copyOf(Algorithm.values(), Algorithm.values().length - 1));
		for (Algorithm algorithm : AlgorithmDescriptor.stored()) {
			AlgorithmDescriptor descriptor = AlgorithmDescriptor.of(algorithm);
			Limit limit = Limit.of(10, Duration.ofSeconds(10)).withAlgorithm(algorithm);
			assertThat(descriptor.algorithm()).isEqualTo(algorithm);
			assertThat(getClass().getClassLoader()
				.getResource("META-INF/scripts/algorithms/" + descriptor.code() + ".lua")).as(algorithm + "'s fragment")
				.isNotNull();
			assertThat(suffixes.add(descriptor.keySuffix(limit))).as(algorithm + "'s key suffix is its own").isTrue();
			assertThat(descriptor.unitMicros(limit)).isNotNegative();
			Window window = descriptor.newWindow(limit);
			window.load(0);
			assertThat(window.used()).isZero();
		}
	}

	@Test
	void anAdaptiveLimitIsNeverStored() {
		Limit adaptive = Limit.of("backend", 200, Duration.ofSeconds(1)).withAlgorithm(Algorithm.ADAPTIVE);
		assertThat(adaptive).hasToString("'backend' (adaptive, up to 200 in flight)");
		assertThatIllegalStateException()
			.isThrownBy(() -> AlgorithmDescriptor.of(Algorithm.ADAPTIVE).newWindow(adaptive))
			.withMessageContaining("decided by each instance");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new dev.limiter.memory.InMemoryRateLimiter().acquire("k", 1, java.util.List.of(adaptive)))
			.withMessageContaining("is adaptive");
		assertThatIllegalArgumentException().isThrownBy(() -> adaptive.withPenalty(Duration.ofMinutes(1)))
			.withMessageContaining("penalty");
	}

}
