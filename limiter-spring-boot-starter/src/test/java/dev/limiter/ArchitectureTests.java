package dev.limiter;

import java.nio.file.Path;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

import dev.limiter.test.Architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;

/**
 * The boundaries of limiter-spring-boot-starter: no package cycles, internal packages
 * used by Limiter alone.
 */
class ArchitectureTests {

	private final JavaClasses classes = Architecture.classes(Path.of("target/classes"));

	/**
	 * One known back edge is left: {@code key}'s {@code RateLimitInvocation}, part of the
	 * key-resolver SPI, carries {@code aop}'s {@code RateLimitOperation}. Moving the SPI
	 * beside the operation is the packages-by-job step of "Limiter 1.0"; until then this
	 * rule keeps every other cycle out.
	 */
	@Test
	void noPackageCycles() {
		Architecture.noPackageCycles()
			.ignoreDependency(resideInAPackage("dev.limiter.key"), resideInAPackage("dev.limiter.aop"))
			.check(this.classes);
	}

	@Test
	void internalPackagesStayInside() {
		Architecture.internalStaysInside().check(this.classes);
	}

}
