package dev.limiter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The code blocks of the project's documents, read as a test compares them with the code
 * that runs: a block under a heading, its lines stripped, so that a doc's copy of a
 * snippet is kept equal to the source or configuration a test starts.
 */
public final class DocBlocks {

	private DocBlocks() {
	}

	/**
	 * Return the first code block of a language after a heading.
	 * @param document the document, such as {@code ../docs/guide.md}
	 * @param heading text of the heading, such as {@code ## WebFlux}
	 * @param language the block's language, such as {@code java}
	 * @return the block's text
	 */
	public static String block(Path document, String heading, String language) {
		String text = read(document);
		int section = text.indexOf(heading);
		if (section < 0) {
			throw new IllegalArgumentException(document + " has no heading '" + heading + "'");
		}
		int start = text.indexOf("```" + language + "\n", section) + language.length() + 4;
		return text.substring(start, text.indexOf("```", start));
	}

	/**
	 * Return the lines of code, stripped, blank ones left out, an elided body ({@code {
	 * ... }}) opened as the source writes it ({@code {}). @param code the code, a block
	 * or a source file's text @return the lines
	 */
	public static List<String> codeLines(String code) {
		return code.lines()
			.map(String::strip)
			.filter((line) -> !line.isEmpty())
			.map((line) -> line.endsWith(" { ... }") ? line.substring(0, line.length() - 6) : line)
			.toList();
	}

	/**
	 * Return the lines of a YAML text without their comments, stripped, blank ones left
	 * out.
	 * @param yaml the YAML
	 * @return the lines
	 */
	public static List<String> yamlLines(String yaml) {
		return yaml.lines()
			.map((line) -> (line.contains(" #") ? line.substring(0, line.indexOf(" #")) : line).strip())
			.filter((line) -> !line.isEmpty())
			.toList();
	}

	/**
	 * Return a file's text.
	 * @param file the file
	 * @return its text
	 */
	public static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
