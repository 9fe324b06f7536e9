package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.web.servlet.RuleFilter;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.test.BootRedisAutoConfiguration;
import dev.limiter.test.RedisCluster;
import dev.limiter.test.RedisServer;

import static dev.limiter.web.WebTests.mvc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The starter against a real 3-master Redis Cluster configured through Spring Boot's own
 * Redis auto-configuration ({@code spring.data.redis.cluster.nodes}): two limits on one
 * method and hostile user names, no {@code CROSSSLOT}, exact counts.
 */
class RedisClusterWebIntegrationTests {

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@BeforeEach
	void flushCluster() {
		cluster.nodes().forEach((node) -> node.command("FLUSHALL"));
	}

	@Test
	void twoLimitsOnOneMethodWithHostileUsersAreExactOnACluster() {
		List<String> users = List.of("alice", "{alice}", "}{", "a:b:c", "Zoë 名前", "x".repeat(10 * 1024), "bob", "{bob",
				"carol}", "dave");
		contextRunner().run((context) -> {
			assertThat(context.getBean(LettuceConnectionFactory.class).isClusterAware()).isTrue();
			assertThat(context.getBean(LimiterRedisConnection.class).isDedicated()).isTrue();
			MockMvc mvc = mvc(context);
			for (String user : users) {
				for (int i = 0; i < 3; i++) {
					MockHttpServletResponse admitted = call(mvc, user);
					assertThat(admitted.getStatus()).as(user + " call " + (i + 1)).isEqualTo(200);
					assertThat(admitted.getHeader("X-RateLimit-Remaining")).isEqualTo(Integer.toString(2 - i));
				}
				// A store error would be a 503 here (fail-closed), so a 429 is the
				// limit's.
				MockHttpServletResponse rejected = call(mvc, user);
				assertThat(rejected.getStatus()).as(user + " call 4").isEqualTo(429);
				assertThat(rejected.getHeader("RateLimit-Policy")).isEqualTo("\"default\";q=3;w=60");
			}
			List<String> keys = keys();
			// Two logs per user, each pair in one slot, spread over the masters.
			assertThat(keys).hasSize(users.size() * 2);
			for (String key : keys) {
				assertThat(key.length()).isLessThan(300);
				String sibling = key.endsWith(":3:60000") ? key.replace(":3:60000", ":5:3600000")
						: key.replace(":5:3600000", ":3:60000");
				assertThat(keys).contains(sibling);
				assertThat(cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", sibling))
					.isEqualTo(cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", key));
				// Only admitted calls are stored: exactly 3 under each limit.
				assertThat(zcard(key)).as(key).isEqualTo(3L);
			}
			assertThat(cluster.nodes()).allSatisfy(
					(node) -> assertThat((Long) node.command("DBSIZE")).as("keys on " + node.port()).isPositive());
		});
	}

	/**
	 * A rule keyed by an API key and the handler's own limits keyed by the user sit in
	 * different slots, so they cannot share one script call: the rule is decided first,
	 * and a call the handler then refuses gives the rule's grant back, so a call refused
	 * by either counts in neither.
	 */
	@Test
	void aRuleAndTheHandlersLimitsOnDifferentSlotsAreAllOrNothingOnACluster() {
		contextRunner()
			.withPropertyValues("limiter.limits.api.threshold=5", "limiter.limits.api.period=1h",
					"limiter.web.rules[0].paths=/reports", "limiter.web.rules[0].limits=api",
					"limiter.web.rules[0].key=#headers.getFirst('X-Api-Key')")
			.run((context) -> {
				MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
					.addFilters(context.getBean(RuleFilter.class))
					.build();
				// alice: 3 admitted, the fourth refused by her own 3 a minute
				assertThat(statuses(mvc, "alice", "team-1", 4)).containsExactly(200, 200, 200, 429);
				// bob, same API key: 2 admitted, so alice's refused call left the rule's
				// count at 3; the third refused by the rule's 5
				assertThat(statuses(mvc, "bob", "team-1", 3)).containsExactly(200, 200, 429);
				// bob, another API key: 1 admitted, so the rule's refusal left his minute
				// at 2
				assertThat(statuses(mvc, "bob", "team-2", 2)).containsExactly(200, 429);
				List<String> keys = keys();
				String rule = keys.stream().filter((key) -> key.contains("n:api:team-1")).findFirst().orElseThrow();
				assertThat(keys).filteredOn((key) -> key.contains(":u:"))
					.hasSize(4)
					.allSatisfy(
							(user) -> assertThat(slot(user)).as("the rule's key and %s are in different slots", user)
								.isNotEqualTo(slot(rule)));
			});
	}

	private static List<Integer> statuses(MockMvc mvc, String user, String apiKey, int calls) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			statuses
				.add(WebTests.call(mvc, get("/reports").principal(() -> user).header("X-Api-Key", apiKey)).getStatus());
		}
		return statuses;
	}

	private static Object slot(String key) {
		return cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", key);
	}

	private static WebApplicationContextRunner contextRunner() {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootRedisAutoConfiguration.type(), AopAutoConfiguration.class,
					LimiterAutoConfiguration.class))
			.withUserConfiguration(ClusterConfiguration.class)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", cluster.addresses()),
					"limiter.failure.policy=fail-closed",
					// Generous: this test is about slots and counts, not timeouts; a cold
					// JVM's first cluster connection takes longer than the default.
					"limiter.timeout=2s");
	}

	private static List<String> keys() {
		List<String> keys = new ArrayList<>();
		for (RedisServer node : cluster.nodes()) {
			((List<?>) node.command("KEYS", "limiter:*")).forEach((key) -> keys.add(key.toString()));
		}
		return keys;
	}

	private static Object zcard(String key) {
		Object slot = cluster.nodes().get(0).command("CLUSTER", "KEYSLOT", key);
		for (RedisServer node : cluster.nodes()) {
			if (((Long) node.command("CLUSTER", "COUNTKEYSINSLOT", slot.toString())) > 0) {
				Object count = node.command("ZCARD", key);
				if (count instanceof Long value && value > 0) {
					return value;
				}
			}
		}
		return 0L;
	}

	private static MockHttpServletResponse call(MockMvc mvc, String user) throws Exception {
		return WebTests.call(mvc, get("/reports").principal(() -> user));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class ClusterConfiguration {

		@Bean
		ReportController reportController() {
			return new ReportController();
		}

	}

	@RestController
	static class ReportController {

		@RateLimit(threshold = 3, period = 1, unit = TimeUnit.MINUTES)
		@RateLimit(name = "hourly", threshold = 5, period = 1, unit = TimeUnit.HOURS)
		@GetMapping("/reports")
		public String reports() {
			return "report";
		}

	}

}
