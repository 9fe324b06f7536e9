package dev.limiter.sample;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the configuration reference ({@code docs/reference.md}) in step with the
 * starter's generated configuration metadata: every property with its default.
 */
class ConfigurationReferenceTests {

	private static final Pattern PROPERTY = Pattern
		.compile("\\{[^{}]*?\"name\"\\s*:\\s*\"(limiter\\.[^\"]+)\"[^{}]*?\\}", Pattern.DOTALL);

	private static final Pattern DEFAULT = Pattern.compile("\"defaultValue\"\\s*:\\s*(\"[^\"]*\"|[^,}\\s]+)");

	private static final Pattern ROW = Pattern.compile("^\\| `(limiter\\.[^`]+)` \\|([^|]*)\\|", Pattern.MULTILINE);

	@Test
	void everyPropertyIsDocumentedWithItsDefault() throws IOException {
		Map<String, String> metadata = metadata();
		Map<String, String> readme = readmeRows();
		assertThat(metadata).isNotEmpty();
		List<String> problems = new ArrayList<>();
		metadata.forEach((name, defaultValue) -> {
			if (name.equals("limiter.limits") || name.equals("limiter.clients")
					|| name.equals("limiter.retry-budgets")) {
				if (!readme.containsKey(name + ".<name>.threshold") && !readme.containsKey(name + ".<name>.ratio")) {
					problems.add(name + ".<name>.* is missing");
				}
				return;
			}
			if (!readme.containsKey(name)) {
				problems.add(name + " is missing");
			}
			else if (defaultValue != null && !readme.get(name).equals("`" + defaultValue + "`")) {
				problems.add(name + " has default " + defaultValue + " but the reference says " + readme.get(name));
			}
		});
		readme.keySet()
			.stream()
			.filter((name) -> !name.startsWith("limiter.limits.<name>.") && !name.startsWith("limiter.clients.<name>.")
					&& !name.startsWith("limiter.retry-budgets.<name>."))
			.filter((name) -> !metadata.containsKey(name))
			.forEach((name) -> problems.add(name + " is in the reference but not in the metadata"));
		assertThat(problems).isEmpty();
	}

	private Map<String, String> metadata() throws IOException {
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("the starter's configuration metadata").isNotNull();
			String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			String properties = json.substring(json.indexOf("\"properties\""));
			Map<String, String> result = new LinkedHashMap<>();
			Matcher matcher = PROPERTY.matcher(properties);
			while (matcher.find()) {
				Matcher defaultValue = DEFAULT.matcher(matcher.group());
				result.put(matcher.group(1),
						defaultValue.find() ? defaultValue.group(1).replace("\"", "").toLowerCase() : null);
			}
			return result;
		}
	}

	private Map<String, String> readmeRows() throws IOException {
		String readme = Files.readString(Path.of("..", "docs", "reference.md"));
		String reference = readme.substring(readme.indexOf("## Configuration reference"));
		reference = reference.substring(0, reference.indexOf("\n## ", 1));
		Map<String, String> rows = new LinkedHashMap<>();
		Matcher matcher = ROW.matcher(reference);
		while (matcher.find()) {
			rows.put(matcher.group(1), matcher.group(2).trim());
		}
		return rows;
	}

}
