package dev.limiter.benchmarks.mvc;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The yardstick of an admitted call: the limiter users write themselves, a
 * {@code StringRedisTemplate} running a {@code DefaultRedisScript} that trims, counts,
 * adds and expires a sorted set per user (no headers, no breaker, no exactness fixes),
 * beside Limiter's {@code /hit} in the same application.
 */
@RestController
class FloorController {

	static final DefaultRedisScript<Long> SCRIPT = new DefaultRedisScript<>("""
			local now = tonumber(ARGV[1])
			local window = tonumber(ARGV[2])
			redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - window)
			if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
			  redis.call('ZADD', KEYS[1], now, ARGV[4])
			  redis.call('PEXPIRE', KEYS[1], window)
			  return 1
			end
			return 0
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String threshold;

	private final String window;

	private final AtomicLong members = new AtomicLong();

	FloorController(StringRedisTemplate redis, @Value("${bench.floor-threshold:1000000}") long threshold,
			@Value("${bench.floor-window-millis:1000}") long window) {
		this.redis = redis;
		this.threshold = Long.toString(threshold);
		this.window = Long.toString(window);
	}

	@GetMapping("/floor")
	ResponseEntity<String> floor(@RequestParam String user) {
		long now = System.currentTimeMillis();
		Long admitted = this.redis.execute(SCRIPT, List.of("floor:" + user), Long.toString(now), this.window,
				this.threshold, now + ":" + this.members.incrementAndGet());
		return (admitted != null && admitted == 1) ? ResponseEntity.ok("hit " + user)
				: ResponseEntity.status(429).build();
	}

}
