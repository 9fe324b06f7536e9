package dev.limiter.sample;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
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
 * The algorithm examples of docs/reference.md: the sample's sliding-buckets and
 * token-bucket endpoints, on the test kit's clock.
 */
@SpringBootTest(properties = "sample.demo-redis=false")
@LimiterTest
class AlgorithmEndpointsTests {

	@Autowired
	private WebApplicationContext context;

	@Autowired
	private TestLimiter limiter;

	private MockMvc mvc;

	@BeforeEach
	void mvc() {
		this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
	}

	@Test
	void theDigestAdmitsThreeEachCalendarMinuteAndAllThreeAgainAtTheNextWholeMinute() throws Exception {
		for (int i = 0; i < 3; i++) {
			this.mvc.perform(get("/digest")).andExpect(status().isOk());
		}
		java.time.Instant now = this.limiter.now();
		java.time.Instant nextMinute = now.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60);
		Duration untilThen = Duration.between(now, nextMinute);
		long seconds = untilThen.getSeconds() + ((untilThen.getNano() > 0) ? 1 : 0);
		this.mvc.perform(get("/digest"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", Long.toString(seconds)))
			.andExpect(header().string("X-RateLimit-Reset", Long.toString(seconds)));
		this.limiter.advance(untilThen.minusNanos(1_000));
		this.mvc.perform(get("/digest")).andExpect(status().isTooManyRequests());
		this.limiter.advance(Duration.ofNanos(1_000));
		this.mvc.perform(get("/digest")).andExpect(status().isOk());
	}

	@Test
	void theChatIsChargedTheTokensItUsedAndTheBudgetComesBackAtMidnightInBerlin() throws Exception {
		this.mvc.perform(get("/chat?user=ann&maxTokens=600"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-RateLimit-Remaining", "400"));
		this.mvc.perform(get("/chat?user=ann&maxTokens=600"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-RateLimit-Remaining", "0"));
		java.time.ZonedDateTime now = this.limiter.now().atZone(java.time.ZoneId.of("Europe/Berlin"));
		Duration toMidnight = Duration.between(now, now.toLocalDate().plusDays(1).atStartOfDay(now.getZone()));
		long seconds = toMidnight.getSeconds() + ((toMidnight.getNano() > 0) ? 1 : 0);
		this.mvc.perform(get("/chat?user=ann&maxTokens=10"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", Long.toString(seconds)));
		this.limiter.advance(toMidnight);
		this.mvc.perform(get("/chat?user=ann&maxTokens=10")).andExpect(status().isOk());
	}

	@Test
	void theCatalogueAdmitsAThousandAMinuteOnSlidingBuckets() throws Exception {
		for (int i = 0; i < 1_000; i++) {
			this.mvc.perform(get("/catalogue")).andExpect(status().isOk());
		}
		// The calls sit in the slice [0s, 1s), which the minute counts until 61s: up to
		// one slice later than an exact log would let them go.
		this.mvc.perform(get("/catalogue"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", "61"));
		this.limiter.advance(Duration.ofSeconds(61));
		this.mvc.perform(get("/catalogue")).andExpect(status().isOk());
	}

	@Test
	void thumbnailsComeInABurstOfFiveThenOneEveryTwoSeconds() throws Exception {
		for (int i = 0; i < 5; i++) {
			this.mvc.perform(get("/thumbnails/7")).andExpect(status().isOk());
		}
		this.mvc.perform(get("/thumbnails/7"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().string("Retry-After", "2"));
		this.limiter.advance(Duration.ofSeconds(2));
		this.mvc.perform(get("/thumbnails/8")).andExpect(status().isOk());
		this.mvc.perform(get("/thumbnails/9")).andExpect(status().isTooManyRequests());
	}

}
