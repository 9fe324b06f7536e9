package dev.limiter.sample;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} examples of docs/operations.md over HTTP, on the sample with a
 * real Redis: list the limits, read alice's usage of {@code /search}, and reset it as
 * admin.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-redis=false", "limiter.limits.search.plans.pro.threshold=10" })
class RateLimitsEndpointTests {

	/**
	 * The body that removes an override: nulls, as Spring Boot's loggers endpoint takes.
	 */
	private static final String REMOVE = "{\"threshold\": null, \"period\": null}";

	/**
	 * The body that removes a limit's override with its plan's: every field named null.
	 */
	private static final String REMOVE_ALL = "{\"threshold\": null, \"period\": null, \"plans.pro.threshold\": null, "
			+ "\"plans.pro.period\": null}";

	private static final RedisServer redis = RedisServer.shared();

	private final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@BeforeEach
	void flush() throws Exception {
		redis.flushAll();
		// The instance keeps its copy of the overrides: removing them through the
		// endpoint
		// empties it at once.
		send("POST", "/actuator/ratelimits/search", "admin", REMOVE_ALL);
		send("POST", "/actuator/ratelimits/search?key=u:alice", "admin", REMOVE);
	}

	@Test
	void listsReadsAndResetsAQuota() throws Exception {
		HttpResponse<String> list = send("GET", "/actuator/ratelimits", "admin");
		assertThat(list.statusCode()).isEqualTo(200);
		assertThat(list.body()).contains("\"n:search\"").contains("\"source\":\"limiter.limits.search\"");
		for (int i = 0; i < 3; i++) {
			assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(200);
		}
		assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(429);
		HttpResponse<String> usage = send("GET", "/actuator/ratelimits/n:search?key=u:alice", "admin");
		assertThat(usage.body()).contains("\"key\":\"n:search:u:alice\"").contains("\"used\":3");
		assertThat(send("DELETE", "/actuator/ratelimits/n:search?key=u:alice", "alice").statusCode())
			.as("only admin resets")
			.isEqualTo(403);
		assertThat(send("DELETE", "/actuator/ratelimits/n:search?key=u:alice", "admin").statusCode()).isEqualTo(200);
		assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(200);
	}

	/**
	 * The endpoint's reads name people: anonymous callers and users get no answer, health
	 * stays open, and the admin's writes pass without a CSRF token, as the operations
	 * guide's security configuration says.
	 */
	@Test
	void readsAreTheAdminsTooAndTheAdminsWritesNeedNoCsrfToken() throws Exception {
		assertThat(send("GET", "/actuator/ratelimits/search?key=u:alice", null).statusCode()).isEqualTo(401);
		assertThat(send("GET", "/actuator/ratelimits/search", "alice").statusCode()).isEqualTo(403);
		assertThat(send("GET", "/actuator/health", null).statusCode()).as("health stays open").isIn(200, 503);
		assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(200);
		assertThat(send("DELETE", "/actuator/ratelimits/search?key=u:alice", "admin").statusCode()).isEqualTo(200);
	}

	/**
	 * The sample's login, 5 a minute per client address, under the operations guide's
	 * security configuration: reached without a CSRF token, as an API's clients call it,
	 * and refused with a 429 once its limit is spent, never a 403.
	 */
	@Test
	void theSamplesLoginIsReachedUnderTheGuidesSecurityAndLimitedFiveAMinute() throws Exception {
		for (int i = 0; i < 5; i++) {
			assertThat(send("POST", "/login?username=ann", null).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> sixth = send("POST", "/login?username=ann", null);
		assertThat(sixth.statusCode()).isEqualTo(429);
		assertThat(sixth.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void theOperationsGuidesSecurityConfigurationIsTheSamplesOwn() throws Exception {
		String guide = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operations.md"));
		int start = guide.lastIndexOf("```java", guide.indexOf("SecurityFilterChain securityFilterChain"));
		String snippet = guide.substring(start + 7, guide.indexOf("```", start + 7));
		String source = java.nio.file.Files
			.readString(java.nio.file.Path.of("src/main/java/dev/limiter/sample/SecurityConfiguration.java"))
			.lines()
			.map(String::strip)
			.reduce("", (all, line) -> all + line + "\n");
		List<String> statements = snippet.lines()
			.map((line) -> (line.contains("//") ? line.substring(0, line.indexOf("//")) : line).strip())
			.filter((line) -> !line.isEmpty() && !line.startsWith("@"))
			.toList();
		assertThat(statements).hasSizeGreaterThan(10);
		assertThat(statements).allSatisfy((line) -> assertThat(source).contains(line));
		// and the other way: every statement of the sample's configuration is shown
		String shown = statements.stream().reduce("", (all, line) -> all + line + "\n");
		List<String> configured = source.lines()
			.dropWhile((line) -> !line.startsWith("SecurityFilterChain securityFilterChain"))
			.filter((line) -> !line.isEmpty() && !line.startsWith("@") && !line.startsWith("//") && !line.equals("}"))
			.toList();
		assertThat(configured).hasSizeGreaterThan(10);
		assertThat(configured).allSatisfy((line) -> assertThat(shown).contains(line));
	}

	@Test
	void aLimitIsAddressedByItsNameAndAnUnknownOneIsA404() throws Exception {
		assertThat(send("GET", "/search?q=x", "alice").statusCode()).isEqualTo(200);
		HttpResponse<String> byName = send("GET", "/actuator/ratelimits/search?key=u:alice", "admin");
		assertThat(byName.statusCode()).isEqualTo(200);
		assertThat(byName.body()).contains("\"key\":\"n:search:u:alice\"").contains("\"used\":1");
		HttpResponse<String> described = send("GET", "/actuator/ratelimits/search", "admin");
		assertThat(described.statusCode()).isEqualTo(200);
		assertThat(described.body()).contains("\"scope\":\"n:search\"")
			.contains("\"source\":\"limiter.limits.search\"");
		assertThat(send("GET", "/actuator/ratelimits/serach?key=u:alice", "admin").statusCode()).isEqualTo(404);
		assertThat(send("GET", "/actuator/ratelimits/n:serach", "admin").statusCode()).isEqualTo(404);
		assertThat(send("DELETE", "/actuator/ratelimits/serach?key=u:alice", "admin").statusCode())
			.as("a typo never looks like a reset")
			.isEqualTo(404);
		assertThat(send("DELETE", "/actuator/ratelimits/search?key=u:alice", "admin").statusCode()).isEqualTo(200);
		assertThat(send("GET", "/actuator/ratelimits/search?key=u:alice", "admin").body()).contains("\"used\":0");
		// a key that nothing counts (written wrong, or never seen) says so, and is no
		// reset
		assertThat(send("GET", "/actuator/ratelimits/search?key=u:nobody", "admin").body()).contains("\"known\":false");
		HttpResponse<String> nothing = send("DELETE", "/actuator/ratelimits/search?key=u:nobody", "admin");
		assertThat(nothing.statusCode()).isEqualTo(404);
		assertThat(nothing.body()).contains("nothing is counted for key 'u:nobody'");
	}

	/**
	 * The override session of docs/operations.md: the answers as shown there, the numbers
	 * in force for alice and for others, and the refusals.
	 */
	@Test
	void overridesALimitAndOneCallerAsTheOperationsGuideShows() throws Exception {
		assertThat(send("POST", "/actuator/ratelimits/search", "alice", "{\"threshold\": 5}").statusCode())
			.as("only admin overrides")
			.isEqualTo(403);
		HttpResponse<String> set = send("POST", "/actuator/ratelimits/search", "admin",
				"{\"threshold\": 5, \"period\": \"1m\"}");
		assertThat(set.statusCode()).isEqualTo(200);
		assertThat(set.body()).isEqualTo("{\"name\":\"search\",\"override\":{\"threshold\":5,\"period\":\"1m\"},"
				+ "\"configured\":{\"threshold\":3,\"period\":\"10s\"},\"appliesTo\":\"every instance\"}");
		HttpResponse<String> own = send("POST", "/actuator/ratelimits/search?key=u:alice", "admin",
				"{\"threshold\": 50}");
		assertThat(own.body()).isEqualTo("{\"name\":\"search\",\"key\":\"n:search:u:alice\","
				+ "\"override\":{\"threshold\":50},\"configured\":{\"threshold\":3,\"period\":\"10s\"},"
				+ "\"appliesTo\":\"every instance\"}");
		assertThat(send("GET", "/actuator/ratelimits/search", "admin").body()).contains("\"source\":\"override\"")
			.contains("\"callerOverrides\":{\"n:search:u:alice\":{\"threshold\":50}}");
		assertThat(statuses("bob", 6)).as("5 per minute").containsExactly(200, 200, 200, 200, 200, 429);
		assertThat(statuses("alice", 6)).as("alice's own 50").containsOnly(200);
		HttpResponse<String> bad = send("POST", "/actuator/ratelimits/search", "admin", "{\"threshold\": 0}");
		assertThat(bad.statusCode()).isEqualTo(400);
		assertThat(bad.body()).contains("\"error\":\"threshold: threshold must be between 1");
		assertThat(send("POST", "/actuator/ratelimits/search", "admin", "{\"period\": \"soon\"}").body())
			.contains("period: 'soon' is not a duration");
		HttpResponse<String> typo = send("POST", "/actuator/ratelimits/search", "admin", "{\"treshold\": 9}");
		assertThat(typo.statusCode()).as("a typo").isEqualTo(400);
		assertThat(typo.body()).contains("treshold");
		assertThat(send("POST", "/actuator/ratelimits/search", "admin", "{}").statusCode()).as("nothing said")
			.isEqualTo(400);
		assertThat(send("GET", "/actuator/ratelimits/search", "admin").body()).as("the override stands")
			.contains("\"source\":\"override\"");
		HttpResponse<String> removed = send("POST", "/actuator/ratelimits/search", "admin", REMOVE);
		assertThat(removed.body()).isEqualTo("{\"name\":\"search\",\"override\":null,"
				+ "\"configured\":{\"threshold\":3,\"period\":\"10s\"},\"appliesTo\":\"every instance\"}");
		assertThat(send("GET", "/actuator/ratelimits/search", "admin").body())
			.contains("\"source\":\"limiter.limits.search\"");
	}

	@Test
	void aPlansNumbersAreOverriddenOverHttpWithFlatFieldsAsTheOperationsGuideShows() throws Exception {
		HttpResponse<String> set = send("POST", "/actuator/ratelimits/search", "admin",
				"{\"plans.pro.threshold\": 7, \"plans.pro.period\": \"1m\"}");
		assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
		assertThat(set.body()).contains("\"plans\":{\"pro\":{\"threshold\":7,\"period\":\"1m\"}}");
		HttpResponse<String> unknown = send("POST", "/actuator/ratelimits/search", "admin",
				"{\"plans.gold.threshold\": 9}");
		assertThat(unknown.statusCode()).isEqualTo(400);
		assertThat(unknown.body()).contains("plans.gold: limit 'search' has no plan 'gold'");
	}

	/**
	 * A field a POST does not name keeps its override: a plan's numbers survive a later
	 * POST of the limit's own, and a field sent as null removes only its number.
	 */
	@Test
	void aPostKeepsTheOverridesOfTheFieldsItDoesNotName() throws Exception {
		assertThat(send("POST", "/actuator/ratelimits/search", "admin", "{\"plans.pro.threshold\": 2}").statusCode())
			.isEqualTo(200);
		HttpResponse<String> own = send("POST", "/actuator/ratelimits/search", "admin", "{\"threshold\": 4}");
		assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
		assertThat(own.body()).as("the override as it now stands")
			.contains("\"override\":{\"threshold\":4,")
			.contains("\"plans\":{\"pro\":{\"threshold\":2}}");
		HttpResponse<String> removed = send("POST", "/actuator/ratelimits/search", "admin", "{\"threshold\": null}");
		assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
		assertThat(removed.body()).contains("\"override\":{\"plans\":{\"pro\":{\"threshold\":2}}}");
		// a caller's own numbers alike
		assertThat(
				send("POST", "/actuator/ratelimits/search?key=u:alice", "admin", "{\"threshold\": 1000}").statusCode())
			.isEqualTo(200);
		HttpResponse<String> period = send("POST", "/actuator/ratelimits/search?key=u:alice", "admin",
				"{\"period\": \"1m\"}");
		assertThat(period.statusCode()).as(period.body()).isEqualTo(200);
		assertThat(period.body()).contains("\"override\":{\"threshold\":1000,\"period\":\"1m\"}");
		assertThat(send("GET", "/actuator/ratelimits/search", "admin").body())
			.contains("\"callerOverrides\":{\"n:search:u:alice\":{\"threshold\":1000,\"period\":\"1m\"}}");
	}

	/**
	 * Hostile writes to the endpoint: each is answered with a 4xx that says what is
	 * wrong, and none changes the overrides in Redis or the numbers in force.
	 */
	@Test
	void hostileWritesAreRefusedAndChangeNothing() throws Exception {
		Object before = redis.command("HGETALL", "sample:overrides");
		String[][] bodies = { { "{\"threshold\": ", "malformed JSON" }, { "[1, 2]", "not an object" },
				{ "{\"threshold\": -5}", "negative" }, { "{\"threshold\": 99999999999999999999}", "overflowing" },
				{ "{\"threshold\": 2147483648}", "past an int" }, { "{\"threshold\": \"ten\"}", "not a number" },
				{ "{\"threshold\": 1.5}", "a fraction" }, { "{\"period\": \"-1s\"}", "a negative period" },
				{ "{\"period\": \"99999999999d\"}", "an overflowing period" },
				{ "{\"period\": 60}", "a period without a unit" }, { "{\"plans\": 5}", "plans not an object" },
				{ "{\"plans\": {\"gold\": {\"threshold\": 9}}}", "a nested object" },
				{ "{\"plans.gold.threshold\": 9}", "an unknown plan" },
				{ "{\"plans.pro.treshold\": 9}", "a misspelled plan field" }, { "{\"treshold\": 5}", "a typo" },
				{ "{}", "nothing to change" } };
		for (String[] body : bodies) {
			HttpResponse<String> answer = send("POST", "/actuator/ratelimits/search", "admin", body[0]);
			System.out.printf("hostile write, %s: %d %s%n", body[1], answer.statusCode(), answer.body());
			assertThat(answer.statusCode()).as(body[1]).isBetween(400, 499);
			assertThat(answer.body()).as(body[1] + ": the refusal says what to write").startsWith("{\"error\":");
		}
		String braces = URLEncoder.encode("{search}", StandardCharsets.UTF_8);
		for (String name : new String[] { braces, "x".repeat(10 * 1024), "%7B%7D%7Btag%7D" }) {
			HttpResponse<String> answer = send("POST", "/actuator/ratelimits/" + name, "admin", "{\"threshold\": 5}");
			System.out.printf("hostile write, name of %d characters: %d%n", name.length(), answer.statusCode());
			assertThat(answer.statusCode()).as("name " + name.substring(0, Math.min(20, name.length())))
				.isBetween(400, 499);
		}
		for (String key : new String[] { "u:a%0AINFO%20forged%20line", "u:" + "x".repeat(300) }) {
			HttpResponse<String> override = send("POST", "/actuator/ratelimits/search?key=" + key, "admin",
					"{\"threshold\": 500}");
			System.out.printf("hostile write, key of %d characters: %d %s%n", key.length(), override.statusCode(),
					override.body());
			assertThat(override.statusCode()).as("caller key " + key.substring(0, 12)).isEqualTo(400);
			assertThat(override.body()).contains("key: ");
			assertThat(send("DELETE", "/actuator/ratelimits/search?key=" + key, "admin").statusCode()).isEqualTo(400);
		}
		assertThat(redis.command("HGETALL", "sample:overrides")).as("nothing written").isEqualTo(before);
		assertThat(send("GET", "/actuator/ratelimits/search", "admin").body())
			.contains("\"source\":\"limiter.limits.search\"");
		assertThat(statuses("bob", 4)).as("the configured 3 per 10 s").containsExactly(200, 200, 200, 429);
	}

	private List<Integer> statuses(String user, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses.add(send("GET", "/search?q=x", user).statusCode());
		}
		return statuses;
	}

	private HttpResponse<String> send(String method, String path, String user) throws Exception {
		return send(method, path, user, null);
	}

	private HttpResponse<String> send(String method, String path, String user, String json) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method,
					(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		if (user != null) {
			request.header("Authorization", "Basic "
					+ Base64.getEncoder().encodeToString((user + ":password").getBytes(StandardCharsets.UTF_8)));
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
