package dev.limiter.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.redis.RedisKeys;
import dev.limiter.test.RedisServer;
import dev.limiter.test.TlsCertificates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis over TLS, as managed Redis services require, configured the Spring Boot way
 * ({@code spring.data.redis.ssl.bundle}): two instances that trust its CA count together
 * in it, and one that trusts another CA names the failed handshake and its fix at startup
 * and limits in its own memory meanwhile. The certificates are made for the test.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisTlsIntegrationTests {

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	@Test
	void instancesCountTogetherOverTlsAndOneThatTrustsAnotherCaNamesTheHandshake(@TempDir Path directory,
			CapturedOutput output) throws Exception {
		TlsCertificates trusted = TlsCertificates.create(directory.resolve("trusted"), "Limiter Test CA");
		TlsCertificates other = TlsCertificates.create(directory.resolve("other"), "Another CA");
		int tlsPort = RedisServer.freePort();
		RedisServer redis = RedisServer.startTls(tlsPort, trusted);
		this.closeables.add(redis);
		RateLimiter first = instance(tlsPort, trusted.ca());
		RateLimiter second = instance(tlsPort, trusted.ca());
		Limit limit = Limit.of("tls", 3, Duration.ofMinutes(1));
		List<Decision> decisions = List.of(first.acquire("k", limit), second.acquire("k", limit),
				first.acquire("k", limit), second.acquire("k", limit));
		assertThat(decisions).noneMatch(Decision::isDegraded);
		assertThat(decisions).extracting(Decision::isAllowed).containsExactly(true, true, true, false);
		assertThat(redis.command("ZCARD", RedisKeys.key("limiter:", "k", limit))).isEqualTo(3L);
		assertThat(output).doesNotContain("TLS handshake failed");
		RateLimiter untrusting = instance(tlsPort, other.ca());
		assertThat(output)
			.contains("Limiter cannot reach Redis at startup, the TLS handshake failed (SSLHandshakeException")
			.contains("set spring.data.redis.ssl.bundle to an SSL bundle whose trust store holds the CA that signed it")
			.doesNotContain("got no answer from Redis");
		Decision inMemory = untrusting.acquire("k", limit);
		assertThat(inMemory.isDegraded()).isTrue();
		assertThat(inMemory.isAllowed()).as("limited in its own memory").isTrue();
	}

	private RateLimiter instance(int port, Path ca) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TlsApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + ca)
			.run();
		this.closeables.add(context);
		return context.getBean(RateLimiter.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TlsApplication {

	}

}
