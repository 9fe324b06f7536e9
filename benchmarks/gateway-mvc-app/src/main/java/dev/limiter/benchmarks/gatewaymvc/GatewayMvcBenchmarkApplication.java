package dev.limiter.benchmarks.gatewaymvc;

import java.time.Duration;
import java.util.function.Function;

import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions;
import org.springframework.cloud.gateway.server.mvc.filter.Bucket4jFilterFunctions;
import org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions;
import org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import dev.limiter.gateway.mvc.LimiterFilterFunctions;

/**
 * A Spring Cloud Gateway Server MVC with two routes to an unlimited handler of the same
 * application, for {@code benchmarks/http.sh}: {@code /bucket4j/**} limited by the
 * gateway's own Bucket4j filter function, {@code /limiter/**} by Limiter's token bucket
 * with the same numbers ({@code bench.threshold} per {@code bench.period-seconds}), both
 * per {@code user} parameter on the same Redis.
 */
@SpringBootApplication
public class GatewayMvcBenchmarkApplication {

	public static void main(String[] args) {
		SpringApplication.run(GatewayMvcBenchmarkApplication.class, args);
	}

	@Bean
	RouterFunction<ServerResponse> routes(@Value("${server.port}") int port,
			@Value("${bench.threshold:5}") long threshold, @Value("${bench.period-seconds:5}") long seconds) {
		Function<ServerRequest, String> user = (request) -> request.param("user").orElse("");
		LimiterFilterFunctions.Config limits = new LimiterFilterFunctions.Config().key(user);
		limits.setThreshold(threshold);
		limits.setPeriod(Duration.ofSeconds(seconds));
		limits.setAlgorithm(dev.limiter.Algorithm.TOKEN_BUCKET);
		String upstream = "http://127.0.0.1:" + port;
		return GatewayRouterFunctions.route("limiter")
			.GET("/limiter/**", HandlerFunctions.http())
			.before(BeforeFilterFunctions.uri(upstream))
			.before(BeforeFilterFunctions.stripPrefix(1))
			.filter(LimiterFilterFunctions.limiter(limits))
			.build()
			.and(GatewayRouterFunctions.route("bucket4j")
				.GET("/bucket4j/**", HandlerFunctions.http())
				.before(BeforeFilterFunctions.uri(upstream))
				.before(BeforeFilterFunctions.stripPrefix(1))
				.filter(Bucket4jFilterFunctions.rateLimit(threshold, Duration.ofSeconds(seconds), user))
				.build());
	}

	/**
	 * The Redis store of the gateway's Bucket4j filter function, on its own connection.
	 * @param host the Redis host
	 * @param port the Redis port
	 * @return the buckets
	 */
	@Bean
	AsyncProxyManager<String> buckets(@Value("${spring.data.redis.host:localhost}") String host,
			@Value("${spring.data.redis.port:6379}") int port) {
		StatefulRedisConnection<String, byte[]> connection = RedisClient.create("redis://" + host + ":" + port)
			.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
		return Bucket4jLettuce.casBasedBuilder(connection).build().asAsync();
	}

	/**
	 * The routes' upstream.
	 */
	@RestController
	static class PlainController {

		@GetMapping("/plain")
		String plain(@RequestParam String user) {
			return "hit " + user;
		}

	}

}
