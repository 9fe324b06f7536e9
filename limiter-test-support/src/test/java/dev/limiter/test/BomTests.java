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
 * {@code dev.limiter:limiter-bom} names every published Limiter artifact (each module
 * that keeps an API listing under {@code api/}) and nothing else, at the reactor's
 * version.
 */
class BomTests {

	private static final Pattern ARTIFACT = Pattern.compile("<artifactId>(limiter-[a-z-]+)</artifactId>");

	@Test
	void theBomNamesEveryPublishedModuleAndNothingElse() throws IOException {
		Path root = Path.of("..");
		String bom = Files.readString(root.resolve("limiter-bom/pom.xml"));
		Set<String> managed = new TreeSet<>();
		String management = bom.substring(bom.indexOf("<dependencyManagement>"));
		Matcher matcher = ARTIFACT.matcher(management);
		while (matcher.find()) {
			managed.add(matcher.group(1));
		}
		Set<String> published = new TreeSet<>();
		try (Stream<Path> modules = Files.list(root)) {
			modules.filter((module) -> Files.isDirectory(module.resolve("api")))
				.forEach((module) -> published.add(module.getFileName().toString()));
		}
		assertThat(published).contains("limiter-core", "limiter-spring-boot-starter", "limiter-grpc");
		assertThat(managed).isEqualTo(published);
		assertThat(bom).doesNotContain("<parent>").contains("<version>${project.version}</version>");
		String parent = Files.readString(root.resolve("pom.xml"));
		String version = parent.substring(parent.indexOf("<version>") + 9, parent.indexOf("</version>"));
		assertThat(bom).as("the BOM's own version is the reactor's").contains("<version>" + version + "</version>");
	}

	@Test
	void theReadmesImportIsTheOneTheConsumerCheckBuildsWith() throws IOException {
		Path root = Path.of("..");
		String readme = Files.readString(root.resolve("README.md"));
		String consumer = Files.readString(root.resolve("consumer-check/pom.xml"));
		String version = Files.readString(root.resolve("limiter-bom/pom.xml")).split("<version>")[1].split("<")[0];
		assertThat(squeezed(readme))
			.contains(squeezed("<dependency><groupId>dev.limiter</groupId><artifactId>limiter-bom</artifactId><version>"
					+ version + "</version><type>pom</type><scope>import</scope></dependency>"))
			.contains("implementation platform(\"dev.limiter:limiter-bom:" + version + "\")");
		assertThat(squeezed(consumer)).as("the consumer check imports the BOM and names the starter without a version")
			.contains("<artifactId>limiter-bom</artifactId><version>${limiter.version}</version><type>pom</type>"
					+ "<scope>import</scope>")
			.contains("<artifactId>limiter-spring-boot-starter</artifactId></dependency>");
	}

	/** The text without its indentation and line breaks. */
	private static String squeezed(String text) {
		return text.replaceAll("\\s*\n\\s*", "");
	}

}
