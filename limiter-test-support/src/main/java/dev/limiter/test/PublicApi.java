package dev.limiter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;

/**
 * The public API of one module as a checked-in listing: every public type with its public
 * and protected members, one line each, so that any change to what users can compile
 * against shows in review. A module's test compares its compiled classes with its
 * {@code api/<module>.api}; {@code -Dlimiter.api.update=true} writes the listing anew
 * instead, for a change made on purpose.
 */
public final class PublicApi {

	/** The mark of packages that are not API, though their types are public. */
	public static final String INTERNAL = ".internal.";

	private PublicApi() {
	}

	/**
	 * Return the listing of the classes in a folder.
	 * @param classes the compiled classes, such as {@code target/classes}
	 * @return the lines of the listing, sorted
	 */
	public static List<String> listing(Path classes) {
		JavaClasses imported = new ClassFileImporter().importPath(classes);
		List<JavaClass> types = imported.stream()
			.filter(PublicApi::isVisible)
			.sorted(Comparator.comparing(JavaClass::getName))
			.toList();
		List<String> lines = new ArrayList<>();
		for (JavaClass type : types) {
			lines.add(describe(type));
			Set<String> members = new java.util.TreeSet<>();
			for (JavaField field : type.getFields()) {
				if (isVisible(field.getModifiers())) {
					members.add("  field " + modifiers(field.getModifiers()) + field.getRawType().getName() + " "
							+ field.getName());
				}
			}
			for (JavaCodeUnit unit : type.getCodeUnits()) {
				if (isVisible(unit.getModifiers()) && !unit.getModifiers().contains(JavaModifier.SYNTHETIC)
						&& !unit.getModifiers().contains(JavaModifier.BRIDGE) && !unit.getName().equals("<clinit>")) {
					String parameters = unit.getRawParameterTypes()
						.stream()
						.map(JavaClass::getName)
						.collect(Collectors.joining(", "));
					String name = unit.getName().equals("<init>") ? "new"
							: unit.getRawReturnType().getName() + " " + unit.getName();
					members.add("  " + modifiers(unit.getModifiers()) + name + "(" + parameters + ")");
				}
			}
			lines.addAll(members);
		}
		return lines;
	}

	/**
	 * Return how many public top-level types the listing holds outside internal packages.
	 * @param listing the listing
	 * @return the number of API types
	 */
	public static long apiTypes(List<String> listing) {
		return listing.stream()
			.filter((line) -> !line.startsWith(" "))
			.map((line) -> line.split(" dev\\.", 2)[1].split(" ", 2)[0])
			.filter((name) -> !("." + name).contains(INTERNAL) && !name.contains("$"))
			.count();
	}

	/**
	 * Compare the listing of compiled classes with a checked-in one, or write it anew
	 * when {@code limiter.api.update} is {@code true}.
	 * @param classes the compiled classes
	 * @param checkedIn the checked-in listing
	 * @return the lines that differ, {@code +} added and {@code -} removed; empty when
	 * both agree or after an update
	 */
	public static List<String> differences(Path classes, Path checkedIn) {
		List<String> actual = listing(classes);
		try {
			if (Boolean.getBoolean("limiter.api.update")) {
				Files.createDirectories(checkedIn.toAbsolutePath().getParent());
				Files.write(checkedIn, actual);
				return List.of();
			}
			List<String> expected = Files.exists(checkedIn) ? Files.readAllLines(checkedIn) : List.of();
			Set<String> removed = new LinkedHashSet<>(expected);
			actual.forEach(removed::remove);
			Set<String> added = new LinkedHashSet<>(actual);
			expected.forEach(added::remove);
			List<String> differences = new ArrayList<>();
			removed.forEach((line) -> differences.add("- " + line));
			added.forEach((line) -> differences.add("+ " + line));
			if (differences.isEmpty() && !expected.equals(actual)) {
				differences.add("~ the same lines in another order");
			}
			return differences;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static boolean isVisible(JavaClass type) {
		if (!type.getModifiers().contains(JavaModifier.PUBLIC) || type.isAnonymousClass() || type.isLocalClass()) {
			return false;
		}
		return type.getEnclosingClass().map(PublicApi::isVisible).orElse(true);
	}

	private static boolean isVisible(Set<JavaModifier> modifiers) {
		return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
	}

	private static String describe(JavaClass type) {
		String kind = type.isAnnotation() ? "@interface"
				: type.isEnum() ? "enum" : type.isRecord() ? "record" : type.isInterface() ? "interface" : "class";
		String supertypes = type.getRawSuperclass()
			.filter((superclass) -> !superclass.getName().startsWith("java.lang."))
			.map((superclass) -> " extends " + superclass.getName())
			.orElse("");
		String interfaces = type.getRawInterfaces()
			.stream()
			.map(JavaClass::getName)
			.filter((name) -> !name.equals("java.lang.annotation.Annotation"))
			.sorted()
			.collect(Collectors.joining(", "));
		return modifiers(type.getModifiers()) + kind + " " + type.getName() + supertypes
				+ (interfaces.isEmpty() ? "" : " implements " + interfaces);
	}

	private static String modifiers(Set<JavaModifier> modifiers) {
		StringBuilder text = new StringBuilder();
		for (JavaModifier modifier : List.of(JavaModifier.PROTECTED, JavaModifier.STATIC, JavaModifier.FINAL,
				JavaModifier.ABSTRACT)) {
			if (modifiers.contains(modifier)) {
				text.append(modifier.name().toLowerCase(java.util.Locale.ROOT)).append(' ');
			}
		}
		return text.toString();
	}

}
