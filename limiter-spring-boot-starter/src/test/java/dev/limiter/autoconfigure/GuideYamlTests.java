package dev.limiter.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.LimitResolver.Spelling;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every YAML block of the guide and the operations guide, as written: it parses, its
 * {@code limiter.*} properties bind to {@link LimiterProperties} and pass the checks a
 * start makes, and every named limit it defines resolves to a limit that can be enforced.
 * The behaviour of each is the job of the tests the docs name; this one keeps a copied
 * block from failing at startup.
 */
class GuideYamlTests {

	@Test
	void everyYamlBlockOfTheDocsBindsAndEveryLimitItNamesResolves() throws Exception {
		List<String> checked = new ArrayList<>();
		for (String doc : List.of("guide.md", "operations.md")) {
			String text = Files.readString(Path.of("..", "docs", doc));
			int at = 0;
			while ((at = text.indexOf("```yaml", at)) >= 0) {
				int start = at + 7;
				int end = text.indexOf("```", start);
				String yaml = text.substring(start, end);
				at = end + 3;
				String where = doc + ", the block at line " + (text.substring(0, start).split("\n").length);
				List<PropertySource<?>> sources = new YamlPropertySourceLoader().load(where,
						new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
				StandardEnvironment environment = new StandardEnvironment();
				sources.forEach(environment.getPropertySources()::addFirst);
				LimiterProperties properties = new Binder(ConfigurationPropertySources.get(environment))
					.bind("limiter", Bindable.of(LimiterProperties.class))
					.orElseGet(LimiterProperties::new);
				LimiterPropertiesValidator.validate(properties);
				LimitResolver resolver = LimiterAutoConfiguration.limitResolver(properties);
				for (String name : properties.getLimits().keySet()) {
					// as an annotation that names the limit and gives numbers of its own,
					// which the YAML's win over
					assertThat(resolver
						.resolve(new LimitAttributes(name, 1L, java.time.Duration.ofMinutes(1), null, null, null, null,
								null, java.util.Map.of()), Spelling.ANNOTATION)
						.limit()
						.name()).as(where).isEqualTo(name);
				}
				checked.add(where);
			}
		}
		assertThat(checked).as("YAML blocks").hasSizeGreaterThan(8);
	}

}
