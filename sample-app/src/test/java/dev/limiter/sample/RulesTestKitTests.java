package dev.limiter.sample;

import java.time.Duration;

import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import dev.limiter.testkit.LimiterTest;
import dev.limiter.testkit.TestLimiter;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The test kit counts the rules by path too: a rule is a servlet filter, so the MockMvc
 * is built with the application's filters, and the kit's clock moves its window.
 */
@SpringBootTest(properties = { "sample.demo-redis=false", "limiter.web.rules[0].paths[0]=/reports/**",
		"limiter.web.rules[0].limits[0]=search" })
@LimiterTest
class RulesTestKitTests {

	@Autowired
	private WebApplicationContext context;

	@Autowired
	private TestLimiter limiter;

	@Test
	void aRuleIsCountedInMemoryOnTheKitsClock() throws Exception {
		MockMvc mvc = MockMvcBuilders.webAppContextSetup(this.context)
			.addFilters(this.context.getBeansOfType(Filter.class).values().toArray(Filter[]::new))
			.build();
		// the sample's search limit, 3 per 10 s, on paths that have no handler (404s
		// count)
		for (int i = 0; i < 3; i++) {
			mvc.perform(get("/reports/" + i)).andExpect(status().isNotFound());
		}
		mvc.perform(get("/reports/3"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", "10"))
			.andExpect(header().string("RateLimit-Policy", "\"search\";q=3;w=10"));
		this.limiter.advance(Duration.ofSeconds(10));
		mvc.perform(get("/reports/4")).andExpect(status().isNotFound());
	}

}
