package dev.limiter.internal.algorithm;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every algorithm is fully described: a descriptor, a Lua fragment of its code, a key of
 * its own and an in-memory twin.
 */
class AlgorithmDescriptorTests {

	@Test
	void everyAlgorithmHasADescriptorAFragmentAKeyOfItsOwnAndAWindow() {
		Set<String> suffixes = new HashSet<>();
		for (Algorithm algorithm : Algorithm.values()) {
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

}
