package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

	@ParameterizedTest
	@ValueSource(strings = { "grpc", "graphql", "spring-ai" })
	void aModulesReadmeBlocksAreWhatItsConsumerIsBuiltFrom(String module) throws IOException {
		Path root = Path.of("..");
		String readme = Files.readString(root.resolve("limiter-" + module + "/README.md"));
		Path consumer = root.resolve("consumer-check/" + module);
		String pom = squeezed(Files.readString(consumer.resolve("pom.xml")));
		List<String> xml = blocks(readme, "xml");
		assertThat(xml).as("the README's dependency blocks").isNotEmpty();
		for (String block : xml) {
			assertThat(pom).as("consumer-check/%s/pom.xml holds the README's block as written", module)
				.contains(squeezed(block));
		}
		assertThat(pom).as("no Limiter module is given a version")
			.doesNotContain("limiter-" + module + "</artifactId><version>");
		Path yaml = consumer.resolve("src/main/resources/application.yml");
		if (Files.exists(yaml)) {
			assertThat(Files.readString(yaml).replaceAll("(?m)^#.*\n", "")).isEqualTo(blocks(readme, "yaml").get(0));
		}
		Path schema = consumer.resolve("src/main/resources/graphql/schema.graphqls");
		if (Files.exists(schema)) {
			assertThat(Files.readString(schema)).isEqualTo(blocks(readme, "graphql").get(0));
		}
	}

	/** The fenced blocks of one language, in order. */
	private static List<String> blocks(String text, String language) {
		List<String> blocks = new ArrayList<>();
		String fence = "```" + language + "\n";
		int start = text.indexOf(fence);
		while (start >= 0) {
			int from = start + fence.length();
			int end = text.indexOf("```", from);
			blocks.add(text.substring(from, end));
			start = text.indexOf(fence, end + 3);
		}
		return blocks;
	}

	/** The text without its indentation and line breaks. */
	private static String squeezed(String text) {
		return text.replaceAll("\\s*\n\\s*", "");
	}

}
