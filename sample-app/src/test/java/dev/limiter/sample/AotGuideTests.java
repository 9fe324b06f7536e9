package dev.limiter.sample;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.limiter.test.DocBlocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's AOT plugin configuration is the sample's own, element by element: the
 * sample builds with it, and {@code AotEndToEndIntegrationTests} runs what it generates.
 */
class AotGuideTests {

	@Test
	void theGuidesAotPluginIsTheSamples() throws Exception {
		List<String> shown = DocBlocks
			.codeLines(DocBlocks.block(Path.of("..", "docs", "guide.md"), "## AOT and native images", "xml"));
		List<String> pom = DocBlocks.codeLines(DocBlocks.read(Path.of("pom.xml")));
		assertThat(shown).hasSize(12).contains("<goal>process-aot</goal>");
		assertThat(pom).containsSubsequence(shown);
	}

}
