package dev.limiter;

import java.nio.file.Path;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

import dev.limiter.test.Architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The engine's boundaries: no Spring Boot and no Reactor anywhere, Spring only in the
 * Redis transport, no package cycles.
 */
class ArchitectureTests {

	private final JavaClasses core = Architecture.classes(Path.of("target/classes"));

	@Test
	void theEngineNeedsNeitherSpringBootNorReactor() {
		noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot..", "reactor..", "io.projectreactor..")
			.check(this.core);
	}

	@Test
	void onlyTheRedisTransportUsesSpring() {
		noClasses().that()
			.resideOutsideOfPackages("dev.limiter.redis..", "dev.limiter.internal.redis..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework..")
			.check(this.core);
	}

	@Test
	void theAnnotationHasNoDependencyBeyondTheEngine() {
		noClasses().that()
			.resideInAPackage("dev.limiter.annotation")
			.should()
			.dependOnClassesThat()
			.resideOutsideOfPackages("dev.limiter..", "java..")
			.check(this.core);
	}

	@Test
	void noPackageCycles() {
		Architecture.noPackageCycles().check(this.core);
	}

}
