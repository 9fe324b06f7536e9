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
			.map(PublicApi::typeName)
			.filter((name) -> !isInternal(name) && !name.contains("$"))
			.count();
	}

	/**
	 * Compare the listing of compiled classes with the checked-in ones, or write them
	 * anew when {@code limiter.api.update} is {@code true}: the types users compile
	 * against in {@code checkedIn}, and the public types of internal packages, which only
	 * Limiter's own modules use, apart in {@code <module>-internal.api} beside it (none
	 * when the module has no internal types), so that the first listing is the API alone.
	 * @param classes the compiled classes
	 * @param checkedIn the checked-in listing of the API
	 * @return the lines that differ, {@code +} added and {@code -} removed, those of the
	 * internal listing marked so; empty when both agree or after an update
	 */
	public static List<String> differences(Path classes, Path checkedIn) {
		List<String> all = listing(classes);
		List<String> differences = new ArrayList<>(compare(part(all, false), checkedIn, ""));
		differences.addAll(compare(part(all, true), internalListing(checkedIn), "internal "));
		return differences;
	}

	/**
	 * Return the checked-in listing of a module's internal types, beside its API's.
	 * @param checkedIn the listing of the API, such as {@code api/limiter-core.api}
	 * @return the internal listing, such as {@code api/limiter-core-internal.api}
	 */
	public static Path internalListing(Path checkedIn) {
		String name = checkedIn.getFileName().toString();
		return checkedIn.resolveSibling(name.substring(0, name.length() - ".api".length()) + "-internal.api");
	}

	/**
	 * Return the lines of the types inside internal packages, or of those outside them,
	 * each type with its members.
	 */
	private static List<String> part(List<String> listing, boolean internal) {
		List<String> lines = new ArrayList<>();
		boolean keep = false;
		for (String line : listing) {
			if (!line.startsWith(" ")) {
				keep = isInternal(typeName(line)) == internal;
			}
			if (keep) {
				lines.add(line);
			}
		}
		return lines;
	}

	private static List<String> compare(List<String> actual, Path checkedIn, String mark) {
		try {
			if (Boolean.getBoolean("limiter.api.update")) {
				if (actual.isEmpty()) {
					Files.deleteIfExists(checkedIn);
					return List.of();
				}
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
			removed.forEach((line) -> differences.add("- " + mark + line));
			added.forEach((line) -> differences.add("+ " + mark + line));
			if (differences.isEmpty() && !expected.equals(actual)) {
				differences.add("~ " + mark + "the same lines in another order");
			}
			return differences;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the types of the API that extend or implement a type of an internal package,
	 * which would make that internal type part of what users compile against.
	 * @param listing the listing
	 * @return the lines of such types
	 */
	public static List<String> apiTypesOnInternalTypes(List<String> listing) {
		return part(listing, false).stream()
			.filter((line) -> !line.startsWith(" "))
			.filter((line) -> line.contains(" extends ") || line.contains(" implements "))
			.filter((line) -> {
				String heritage = line.substring(line.indexOf(typeName(line)) + typeName(line).length());
				return heritage.contains(INTERNAL);
			})
			.toList();
	}

	private static String typeName(String typeLine) {
		return "dev." + typeLine.split(" dev\\.", 2)[1].split(" ", 2)[0];
	}

	private static boolean isInternal(String typeName) {
		return ("." + typeName).contains(INTERNAL);
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
