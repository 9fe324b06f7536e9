package dev.limiter.ai;

import java.nio.file.Path;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

import dev.limiter.test.Architecture;

/**
 * The boundaries of limiter-spring-ai: no package cycles, internal packages used by
 * Limiter alone.
 */
class ArchitectureTests {

	private final JavaClasses classes = Architecture.classes(Path.of("target/classes"));

	@Test
	void noPackageCycles() {
		Architecture.noPackageCycles().check(this.classes);
	}

	@Test
	void internalPackagesStayInside() {
		Architecture.internalStaysInside().check(this.classes);
	}

}
