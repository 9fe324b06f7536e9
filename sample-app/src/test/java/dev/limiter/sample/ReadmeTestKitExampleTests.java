package dev.limiter.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test-kit example of the test kit's README and of the guide is
 * {@code GreetingLimitTests} as it runs: every import the example needs to compile, and
 * every line of its test method.
 */
class ReadmeTestKitExampleTests {

	@Test
	void theTestKitsReadmeExampleHasEveryImportAndLineOfTheTestThatRuns() throws Exception {
		assertIsTheTestThatRuns(Files.readString(Path.of("..", "limiter-test", "README.md")));
	}

	@Test
	void theGuidesTestExampleHasEveryImportAndLineOfTheTestThatRuns() throws Exception {
		assertIsTheTestThatRuns(Files.readString(Path.of("..", "docs", "guide.md")));
	}

	private static void assertIsTheTestThatRuns(String readme) throws Exception {
		int start = readme.lastIndexOf("```java", readme.indexOf("\n@LimiterTest\n"));
		String example = readme.substring(start + 7, readme.indexOf("```", start + 7));
		String test = Files.readString(Path.of("src/test/java/dev/limiter/sample/GreetingLimitTests.java"));
		List<String> imports = example.lines().filter((line) -> line.startsWith("import ")).toList();
		assertThat(imports).hasSize(12);
		assertThat(imports).allSatisfy((line) -> assertThat(test).contains(line));
		List<String> body = example.lines()
			.dropWhile((line) -> !line.contains("void theThirdGreeting"))
			.map(String::strip)
			.filter((line) -> !line.isEmpty())
			.toList();
		assertThat(body).isNotEmpty();
		String flattened = test.lines().map(String::strip).reduce("", (all, line) -> all + line + "\n");
		assertThat(body).allSatisfy((line) -> assertThat(flattened).contains(line));
	}

}
