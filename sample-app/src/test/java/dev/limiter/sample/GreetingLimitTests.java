package dev.limiter.sample;

import java.time.Duration;

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
 * The README's test-kit example: the sample's greeting limit (2 per 30 s), tested without
 * Redis and without sleeping.
 */
@SpringBootTest(properties = "sample.demo-redis=false")
@LimiterTest
class GreetingLimitTests {

	@Autowired
	private WebApplicationContext context;

	@Autowired
	private TestLimiter limiter;

	@Test
	void theThirdGreetingIn30SecondsIsRejectedUntilTheWindowMoves() throws Exception {
		MockMvc mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
		mvc.perform(get("/greeting")).andExpect(status().isOk());
		mvc.perform(get("/greeting")).andExpect(status().isOk());
		mvc.perform(get("/greeting"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", "30"));
		this.limiter.advance(Duration.ofSeconds(30));
		mvc.perform(get("/greeting")).andExpect(status().isOk());
	}

}
