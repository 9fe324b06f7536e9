package dev.limiter.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's AOT plugin configuration is the sample's own, element by element: the
 * sample builds with it, and {@code AotEndToEndIntegrationTests} runs what it generates.
 */
class AotGuideTests {

	@Test
	void theGuidesAotPluginIsTheSamples() throws Exception {
		String guide = Files.readString(Path.of("..", "docs", "guide.md"));
		String section = guide.substring(guide.indexOf("## AOT and native images"));
		int start = section.indexOf("```xml\n") + 7;
		List<String> shown = lines(section.substring(start, section.indexOf("```", start)));
		List<String> pom = lines(Files.readString(Path.of("pom.xml")));
		assertThat(shown).hasSize(12).contains("<goal>process-aot</goal>");
		assertThat(pom).containsSubsequence(shown);
	}

	private static List<String> lines(String xml) {
		return xml.lines().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

}
