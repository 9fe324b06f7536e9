package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ARCHITECTURE.md names the classes that keep each promise: every type it names in code
 * spans is one of the project's (a file, or a nested type declared in one), or one of the
 * libraries' it names on purpose. A class renamed or removed without the map fails here.
 */
class ArchitectureMapTests {

	/** The libraries' types and the protocol words the map names. */
	private static final Set<String> NOT_OURS = Set.of("CallAdvisor", "ChatClientBuilderCustomizer", "Flow", "Flux",
			"GraphQlHttpHandler", "HashedWheelTimer", "MethodInterceptor", "Mono", "Publisher", "QuotaFailure",
			"RetryInfo", "Schedulers", "ServerInterceptor", "StreamAdvisor", "String", "WebGraphQlInterceptor");

	private static final Pattern NAMED_TYPE = Pattern.compile("`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)");

	@Test
	void everyTypeTheMapNamesExists() throws IOException {
		Path root = Path.of("..");
		String map = Files.readString(root.resolve("ARCHITECTURE.md"));
		Set<String> named = new TreeSet<>();
		Matcher matcher = NAMED_TYPE.matcher(map);
		while (matcher.find()) {
			named.add(matcher.group(1));
		}
		named.removeAll(NOT_OURS);
		Set<String> declared = declaredTypes(root);
		assertThat(named).as("types ARCHITECTURE.md names").hasSizeGreaterThan(100);
		assertThat(named).as("types ARCHITECTURE.md names that the code does not declare").allMatch(declared::contains);
	}

	/** The names of every type the project's Java sources declare, nested ones too. */
	private static Set<String> declaredTypes(Path root) throws IOException {
		Pattern declaration = Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z][A-Za-z0-9]*)");
		Set<String> declared = new TreeSet<>();
		try (Stream<Path> files = Files.walk(root)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java"))
				.filter((path) -> !path.toString().contains("/target/") && !path.toString().contains("/.git/"))
				.toList()) {
				Matcher matcher = declaration.matcher(Files.readString(file));
				while (matcher.find()) {
					declared.add(matcher.group(1));
				}
			}
		}
		return declared;
	}

}
