package dev.limiter.sample;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first traffic of two freshly started instances is a flood on one key: a cold JVM on
 * a busy machine is slow to read Redis's answers, and that slowness must never be taken
 * for a Redis outage that the failure policy would answer by admitting calls.
 */
class ColdStartEndToEndIntegrationTests {

	private static final int THRESHOLD = 50;

	@Test
	void aFloodOnColdInstancesNeverAdmitsMoreThanTheThreshold() throws Exception {
		try (RedisServer redis = RedisServer.start();
				// The default limiter settings, as a user starts it; the window is longer
				// than the flood, so the oracle is the threshold itself.
				SampleInstances instances = SampleInstances.start(2, redis,
						"--limiter.limits.search.threshold=" + THRESHOLD, "--limiter.limits.search.period=60s")) {
			List<HttpResponse<String>> responses = instances.fire("/search?q=cold", null, 2_000, 64);
			List<HttpResponse<String>> admitted = responses.stream()
				.filter((response) -> response.statusCode() == 200)
				.toList();
			assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isIn(200, 429));
			// Which calls the failure policy admitted is asked first: it tells an
			// overload
			// taken for an outage from a store that admitted too many.
			assertThat(admitted)
				.allSatisfy((response) -> assertThat(response.headers().firstValue("X-RateLimit-Remaining"))
					.as("decided by Redis, not by the failure policy")
					.isPresent());
			assertThat(admitted).as("admitted calls in one window of %d", THRESHOLD).hasSize(THRESHOLD);
			// Callers' keys carry a hash tag; the instances' rejection counts
			// (sample:offenders:*) are not a caller's.
			List<?> keys = (List<?>) redis.command("KEYS", "sample:{*");
			assertThat(keys).as("one log for the one caller and limit").hasSize(1);
			assertThat(redis.command("ZCARD", keys.get(0).toString())).isEqualTo((long) THRESHOLD);
		}
	}

}
