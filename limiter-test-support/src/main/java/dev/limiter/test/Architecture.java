package dev.limiter.test;

import java.nio.file.Path;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The architecture rules every Limiter module keeps, as ArchUnit rules its tests check
 * over its own compiled classes.
 */
public final class Architecture {

	private Architecture() {
	}

	/**
	 * Return a module's compiled classes.
	 * @param classes the folder, such as {@code target/classes}
	 * @return the classes
	 */
	public static JavaClasses classes(Path classes) {
		return new ClassFileImporter().importPath(classes);
	}

	/**
	 * Return the rule that no two packages of Limiter depend on each other, directly or
	 * through others: each package is a slice of its own.
	 * @return the rule
	 */
	public static SliceRule noPackageCycles() {
		return slices().assignedFrom(new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass type) {
				String name = type.getPackageName();
				return name.startsWith("dev.limiter") ? SliceIdentifier.of(name) : SliceIdentifier.ignore();
			}

			@Override
			public String getDescription() {
				return "the packages of dev.limiter";
			}

		}).should().beFreeOfCycles();
	}

	/**
	 * Return the rule that internal packages are used by Limiter alone: nothing outside
	 * {@code dev.limiter} depends on them.
	 * @return the rule
	 */
	public static ArchRule internalStaysInside() {
		return noClasses().that()
			.resideOutsideOfPackage("dev.limiter..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.limiter..internal..")
			.allowEmptyShould(true);
	}

}
