package dev.limiter.web;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bad rule by path stops the start with a message that names the property to fix.
 */
class RulesStartupValidationTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			textBlock = """
					limiter.web.rules[0].paths[0]=/api/{id                          | limiter.web.rules[0].paths[0]: '/api/{id' is not a path pattern
					limiter.web.rules[0].methods[0]=FETCH                           | limiter.web.rules[0].methods[0]: 'FETCH' is not an HTTP method
					limiter.web.rules[0].limits[0]=nowhere                          | limiter.web.rules[0].limits[0]: 'nowhere' is not a limit under limiter.limits
					limiter.web.rules[0].key=#headers.getFirst(                     | limiter.web.rules[0].key: key '#headers.getFirst(' is not a valid SpEL expression
					limiter.web.rules[0].condition=#user == null                    | limiter.web.rules[0].condition: condition '#user == null' refers to #user, which is not a variable here
					limiter.web.rules[0].exclude[0]=                                | limiter.web.rules[0].exclude[0]: a path pattern must not be blank
					""")
	void aBadRuleStopsTheStartNamingTheProperty(String property, String message) {
		WebTests.contextRunner()
			.withPropertyValues("limiter.limits.api.threshold=10", "limiter.limits.api.period=1m",
					"limiter.web.rules[0].paths[0]=/api/**", "limiter.web.rules[0].limits[0]=api", property)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(message);
			});
	}

}
