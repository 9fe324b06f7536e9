package dev.limiter.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;

/**
 * An application instance of its own, in a JVM of its own, for the fault tests of calls
 * in flight: it takes the slots it is told to and holds them, its leases renewed, until
 * it reads {@code finish} on its standard input; then it ends its calls and says how many
 * of them gave a slot back.
 * <p>
 * Arguments: the Redis port, the caller key, the threshold, the lease in milliseconds and
 * the calls to start.
 */
public final class SlotHolder {

	private SlotHolder() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		String key = args[1];
		Limit limit = Limit.of("held", Long.parseLong(args[2]), Duration.ofMillis(Long.parseLong(args[3])))
			.withAlgorithm(Algorithm.IN_FLIGHT);
		int calls = Integer.parseInt(args[4]);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		connections.afterPropertiesSet();
		connections.start();
		RedisRateLimiter limiter = RedisRateLimiter.builder(connections).build();
		List<Decision> running = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			Decision decision = limiter.acquire(key, limit);
			if (!decision.isAllowed()) {
				System.out.println("REFUSED");
				System.exit(2);
			}
			running.add(decision);
		}
		System.out.println("HELD " + running.size());
		BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = input.readLine()) != null) {
			if (line.equals("finish")) {
				int given = 0;
				for (Decision decision : running) {
					given += limiter.finish(decision) ? 1 : 0;
				}
				System.out.println("FINISHED " + given);
			}
		}
		limiter.close();
		connections.destroy();
	}

}
