package dev.limiter.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class FaultProxyIntegrationTests {

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@Test
	void forwardsFaithfullyUntilToldOtherwise() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
			assertThat(client.call("SET", "faithful", "v")).isEqualTo("OK");
			assertThat(client.call("GET", "faithful")).isEqualTo("v");
			assertThat(proxy.connections()).isEqualTo(1);
			assertThat(proxy.forwardedBytes()).isPositive();
		}
	}

	@Test
	void latencyDelaysEachWayAndEndsWithRecover() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
			proxy.latency(Duration.ofMillis(100), Duration.ofMillis(50));
			long start = System.nanoTime();
			assertThat(client.call("PING")).isEqualTo("PONG");
			long slow = System.nanoTime() - start;
			assertThat(slow).as("a request and its reply, 100 ms each way at least")
				.isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
			proxy.recover();
			start = System.nanoTime();
			assertThat(client.call("PING")).isEqualTo("PONG");
			assertThat(System.nanoTime() - start).isLessThan(slow);
		}
	}

	@Test
	void aBlackholeHoldsEverythingWithoutClosingAndRecoverDeliversIt() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofMillis(300))) {
			assertThat(client.call("PING")).isEqualTo("PONG");
			proxy.blackhole();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.call("SET", "held", "v"));
			assertThat(proxy.connections()).as("nothing closed").isEqualTo(1);
			assertThat(redis.command("EXISTS", "held")).as("the request is held").isEqualTo(0L);
			proxy.recover();
			try (RespClient another = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
				assertThat(another.call("PING")).isEqualTo("PONG");
			}
			assertThat(redis.command("GET", "held")).as("the held request delivered").isEqualTo("v");
		}
	}

	@Test
	void aResetOnTheNextReplyLosesTheReplyOfARequestThatRan() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
			assertThat(client.call("DEL", "ran")).isNotNull();
			proxy.resetOnReplyTo("INCR");
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.call("INCR", "ran"));
			assertThat(redis.command("GET", "ran")).as("the request ran").isEqualTo("1");
			try (RespClient another = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
				assertThat(another.call("PING")).as("new connections are served").isEqualTo("PONG");
			}
		}
	}

	@Test
	void resetConnectionsBreaksEveryOpenOne() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(5))) {
			assertThat(client.call("PING")).isEqualTo("PONG");
			proxy.resetConnections();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.call("PING"));
		}
	}

	@Test
	void aBandwidthCapSlowsLargeReplies() {
		try (FaultProxy proxy = FaultProxy.to(redis);
				RespClient client = new RespClient(proxy.host(), proxy.port(), Duration.ofSeconds(10))) {
			client.call("SET", "large", "x".repeat(256 * 1024));
			proxy.bandwidth(1024 * 1024);
			long start = System.nanoTime();
			assertThat(client.call("GET", "large")).asString().hasSize(256 * 1024);
			assertThat(System.nanoTime() - start).as("256 KB at 1 MB/s")
				.isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
		}
	}

}
