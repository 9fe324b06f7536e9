package dev.limiter.web;

import org.junit.jupiter.api.Test;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.internal.web.servlet.RuleFilter;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bad rule by path stops the start with a message that names the property to fix.
 */
class RulesStartupValidationTests {

	/**
	 * A rule's {@code max-wait} lets a refused request wait for its turn, as a handler's
	 * {@code maxWait} does: two requests at once under 1 per 200 ms, both answered; the
	 * same numbers under a rule without it refuse the second.
	 */
	@Test
	void aRulesMaxWaitLetsARefusedRequestWaitForItsTurn() {
		WebTests.redis.flushAll();
		WebTests.contextRunner(RulesController.class)
			.withPropertyValues("limiter.limits.paced.threshold=1", "limiter.limits.paced.period=200ms",
					"limiter.limits.paced.algorithm=token-bucket", "limiter.web.rules[0].paths[0]=/paced",
					"limiter.web.rules[0].limits[0]=paced", "limiter.web.rules[0].max-wait=2s",
					"limiter.limits.instant.threshold=1", "limiter.limits.instant.period=200ms",
					"limiter.limits.instant.algorithm=token-bucket", "limiter.web.rules[1].paths[0]=/refused",
					"limiter.web.rules[1].limits[0]=instant")
			.run((context) -> {
				MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
					.addFilters(context.getBean(RuleFilter.class))
					.build();
				assertThat(WebTests.call(mvc, get("/paced")).getStatus()).isEqualTo(200);
				assertThat(WebTests.call(mvc, get("/paced")).getStatus()).as("waited for its turn").isEqualTo(200);
				assertThat(WebTests.call(mvc, get("/refused")).getStatus()).isEqualTo(200);
				assertThat(WebTests.call(mvc, get("/refused")).getStatus()).as("no max-wait: refused at once")
					.isEqualTo(429);
			});
	}

	@RestController
	static class RulesController {

		@GetMapping({ "/paced", "/refused" })
		String paced() {
			return "ok";
		}

	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			textBlock = """
					limiter.web.rules[0].paths[0]=/api/{id                          | limiter.web.rules[0].paths[0]: '/api/{id' is not a path pattern
					limiter.web.rules[0].methods[0]=FETCH                           | limiter.web.rules[0].methods[0]: 'FETCH' is not an HTTP method
					limiter.web.rules[0].limits[0]=nowhere                          | limiter.web.rules[0].limits[0]: 'nowhere' is not a limit under limiter.limits
					limiter.web.rules[0].key=#headers.getFirst(                     | limiter.web.rules[0].key: key '#headers.getFirst(' is not a valid SpEL expression
					limiter.web.rules[0].condition=#user == null                    | limiter.web.rules[0].condition: condition '#user == null' refers to #user, which is not a variable here
					limiter.web.rules[0].exclude[0]=                                | limiter.web.rules[0].exclude[0]: a path pattern must not be blank
					limiter.web.rules[0].max-wait=-1s                               | limiter.web.rules[0].max-wait: -1000ms is not a duration between 0 and
					limiter.web.rules[0].max-wait=1h                                | limiter.web.rules[0].max-wait: 3600000ms is not a duration between 0 and
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
