package dev.limiter.sample;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds on the packaged sample jar: two separate processes on two ports against one real
 * Redis, with concurrent HTTP requests at both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SampleAppEndToEndIntegrationTests {

	RedisServer redis;

	SampleInstances instances;

	@BeforeAll
	void startTwoInstances() throws Exception {
		this.redis = RedisServer.start();
		this.instances = start(this.redis);
		// Each instance's first decision opens its connection and loads the script: on a
		// cold JVM it can outlast limiter.timeout and be decided by the local policy,
		// which is not what these tests measure. One call of /orders per instance, by a
		// caller no test uses there, takes that first decision.
		String admin = "Basic " + Base64.getEncoder().encodeToString("admin:password".getBytes(StandardCharsets.UTF_8));
		for (int i = 0; i < 2; i++) {
			assertThat(this.instances.get(i, "/orders/1", admin).statusCode()).isEqualTo(200);
		}
	}

	/**
	 * Start the two instances; subclasses start them another way.
	 * @param redis the Redis they share
	 * @return the instances
	 */
	SampleInstances start(RedisServer redis) throws Exception {
		// A burst window longer than the 12 requests can take on a busy machine, set the
		// way an operator would: a named limit overridden without a rebuild.
		return SampleInstances.start(2, redis, "--limiter.limits.orders-burst.period=5s");
	}

	@AfterAll
	void stop() throws InterruptedException {
		if (this.instances != null) {
			this.instances.close();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	/**
	 * The guide's token budget: a call is charged what its answer used, past the budget
	 * if need be, and the next is told to come back at the next midnight in Berlin.
	 */
	@Test
	void aTokenBudgetIsChargedAfterEachCallAndRefusesUntilMidnightInItsZone() throws Exception {
		HttpResponse<String> first = this.instances.get(0, "/chat?user=ann&maxTokens=600", null);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).as("charged 600").hasValue("400");
		HttpResponse<String> second = this.instances.get(1, "/chat?user=ann&maxTokens=600", null);
		assertThat(second.statusCode()).as("400 left on the other instance").isEqualTo(200);
		assertThat(second.headers().firstValue("X-RateLimit-Remaining")).as("1,200 of 1,000").hasValue("0");
		java.time.ZonedDateTime berlin = java.time.ZonedDateTime.now(java.time.ZoneId.of("Europe/Berlin"));
		long toMidnight = Duration.between(berlin, berlin.toLocalDate().plusDays(1).atStartOfDay(berlin.getZone()))
			.toSeconds();
		HttpResponse<String> third = this.instances.get(0, "/chat?user=ann&maxTokens=10", null);
		assertThat(third.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(third.headers().firstValue("Retry-After").orElseThrow()))
			.as("the next midnight in Berlin")
			.isBetween(toMidnight - 5, toMidnight + 1);
		assertThat(this.instances.get(1, "/chat?user=bob&maxTokens=10", null).statusCode()).as("a budget per user")
			.isEqualTo(200);
	}

	@Test
	void concurrentCallsAcrossBothProcessesAdmitExactlyTheThreshold() throws Exception {
		List<HttpResponse<String>> responses = this.instances.fire("/quotes?symbol=E2E", null, 40, 16);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200)
			.hasSize(5)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("X-RateLimit-Remaining"))
				.as("decided by Redis, not by a failure policy")
				.isPresent());
		List<HttpResponse<String>> rejected = responses.stream()
			.filter((response) -> response.statusCode() == 429)
			.toList();
		assertThat(rejected).hasSize(35);
		for (HttpResponse<String> response : rejected) {
			assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 10L);
			assertThat(response.headers().firstValue("RateLimit-Policy")).isPresent();
			assertThat(response.headers().firstValue("RateLimit"))
				.hasValueSatisfying((v) -> assertThat(v).contains("r=0"));
			assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
			assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
			assertThat(response.headers().firstValue("X-RateLimit-Reset")).isPresent();
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((v) -> assertThat(v).startsWith("application/problem+json"));
			assertThat(response.body()).contains("\"status\":429");
		}
	}

	@Test
	void twoLimitsAcrossBothProcessesAndAdmittedAgainAfterRetryAfter() throws Exception {
		String alice = "Basic " + Base64.getEncoder().encodeToString("alice:password".getBytes(StandardCharsets.UTF_8));
		List<HttpResponse<String>> responses = this.instances.fire("/orders/7", alice, 12, 16);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200).hasSize(3);
		long retryAfter = responses.stream()
			.filter((response) -> response.statusCode() == 429)
			.mapToLong((response) -> Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow()))
			.max()
			.orElseThrow();
		assertThat(retryAfter).isBetween(1L, 5L);
		// Honour Retry-After as a client would: this wait is what is under test.
		LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(retryAfter));
		HttpResponse<String> again = this.instances.get(1, "/orders/7", alice);
		assertThat(again.statusCode()).isEqualTo(200);
		assertThat(again.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
	}

	@Test
	void aCallerTheInstanceRemembersIsAnsweredBeforeItsArgumentsAreRead() throws Exception {
		String admin = "Basic " + Base64.getEncoder().encodeToString("admin:password".getBytes(StandardCharsets.UTF_8));
		for (int i = 0; i < 3; i++) {
			assertThat(this.instances.get(0, "/search?q=e2e", admin).statusCode()).isEqualTo(200);
		}
		assertThat(this.instances.get(0, "/search?q=e2e", admin).statusCode()).as("rejected by Redis").isEqualTo(429);
		// Without its required parameter the call is a 400, unless the instance already
		// knows the caller is rejected.
		HttpResponse<String> known = this.instances.get(0, "/search", admin);
		assertThat(known.statusCode()).isEqualTo(429);
		assertThat(known.headers().firstValue("Retry-After")).isPresent();
		assertThat(this.instances.get(1, "/search", admin).statusCode()).as("the other instance has not asked Redis")
			.isEqualTo(400);
	}

	@Test
	void usersDoNotShareAQuota() throws Exception {
		String bob = "Basic " + Base64.getEncoder().encodeToString("bob:password".getBytes(StandardCharsets.UTF_8));
		assertThat(this.instances.get(0, "/greeting", bob).statusCode()).isEqualTo(200);
		assertThat(this.instances.get(1, "/greeting", bob).statusCode()).isEqualTo(200);
		assertThat(this.instances.get(0, "/greeting", bob).statusCode()).isEqualTo(429);
		assertThat(this.instances.get(1, "/greeting", null).statusCode()).isEqualTo(200);
	}

}
