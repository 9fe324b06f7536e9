package dev.limiter.sample;

import java.security.Principal;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.Algorithm;
import dev.limiter.annotation.RateLimit;

/**
 * The sample API: each endpoint shows one way to limit.
 */
@RestController
class SampleController {

	private final ReportService reports;

	SampleController(ReportService reports) {
		this.reports = reports;
	}

	/**
	 * Per user: 2 calls in any 30 seconds for each signed-in user (or client address).
	 */
	@RateLimit(period = 30, threshold = 2)
	@GetMapping("/greeting")
	Map<String, String> greeting(Principal principal) {
		String name = (principal != null) ? principal.getName() : "stranger";
		return Map.of("greeting", "Hello, " + name + "!");
	}

	/**
	 * Per client address, whoever claims to be signing in: 5 attempts a minute.
	 */
	@RateLimit(key = "'login:' + #request.remoteAddr", period = 1, unit = TimeUnit.MINUTES, threshold = 5)
	@PostMapping("/login")
	Map<String, String> login(@RequestParam String username) {
		return Map.of("status", "checked", "username", username);
	}

	/**
	 * A named limit: application.yml sets {@code limiter.limits.search}, which wins over
	 * the numbers here without a rebuild.
	 */
	@RateLimit(name = "search", period = 60, threshold = 100)
	@GetMapping("/search")
	Map<String, Object> search(@RequestParam String q) {
		return Map.of("query", q, "results", new String[] { q + " one", q + " two" });
	}

	/**
	 * Two limits checked together: a burst of 3 a second and 20 an hour per user.
	 */
	@RateLimit(name = "orders-burst", period = 1, threshold = 3)
	@RateLimit(name = "orders-hourly", period = 1, unit = TimeUnit.HOURS, threshold = 20)
	@GetMapping("/orders/{id}")
	Map<String, Object> order(@PathVariable long id) {
		return Map.of("id", id, "status", "shipped");
	}

	/**
	 * A big quota on sliding buckets: 1,000 a minute and 10,000 an hour per user, each
	 * key a few counters in Redis however many calls it makes.
	 */
	@RateLimit(threshold = 1_000, period = 1, unit = TimeUnit.MINUTES, algorithm = Algorithm.SLIDING_BUCKETS)
	@RateLimit(threshold = 10_000, period = 1, unit = TimeUnit.HOURS, algorithm = Algorithm.SLIDING_BUCKETS)
	@GetMapping("/catalogue")
	Map<String, Object> catalogue(@RequestParam(defaultValue = "1") int page) {
		return Map.of("page", page, "items", new String[] { "item " + (2 * page - 1), "item " + (2 * page) });
	}

	/**
	 * A token bucket: a burst of 5 thumbnails per user, refilled at 5 per 10 seconds (one
	 * every 2 seconds).
	 */
	@RateLimit(threshold = 5, period = 10, algorithm = Algorithm.TOKEN_BUCKET)
	@GetMapping("/thumbnails/{id}")
	Map<String, Object> thumbnail(@PathVariable long id) {
		return Map.of("id", id, "url", "/images/" + id + "-small.png");
	}

	/**
	 * A calendar limit: 3 digests per user in each minute of the clock, all 3 again at
	 * the next whole minute.
	 */
	@RateLimit(threshold = 3, calendar = "minute")
	@GetMapping("/digest")
	Map<String, Object> digest() {
		return Map.of("digest", "3 new orders, 1 new review");
	}

	/**
	 * A model call with a token budget: 1,000 tokens per user per day in Berlin. A call
	 * is admitted while the budget has a token left, and is charged the tokens its answer
	 * used once it returns, past the budget if need be. The simulated model uses all of
	 * {@code maxTokens}.
	 */
	@RateLimit(name = "chat-tokens", threshold = 1_000, calendar = "day", zone = "Europe/Berlin", key = "#user",
			charge = "#result.usage.totalTokens")
	@GetMapping("/chat")
	ChatReply chat(@RequestParam String user, @RequestParam(defaultValue = "100") int maxTokens) {
		return new ChatReply("Here is what I know.", new TokenUsage(maxTokens));
	}

	/**
	 * A model's answer.
	 *
	 * @param answer the text
	 * @param usage the tokens it used
	 */
	record ChatReply(String answer, TokenUsage usage) {
	}

	/**
	 * The tokens a model call used.
	 *
	 * @param totalTokens prompt and answer together
	 */
	record TokenUsage(long totalTokens) {
	}

	/**
	 * A SpEL key from a request parameter: each symbol at most 5 times in 10 seconds,
	 * whoever asks.
	 */
	@RateLimit(key = "'quote:' + #symbol", period = 10, threshold = 5)
	@GetMapping("/quotes")
	Map<String, Object> quote(@RequestParam String symbol) {
		return Map.of("symbol", symbol, "price", 42.0);
	}

	/**
	 * At most 2 a second, and a call over it waits its turn, up to 3 seconds, instead of
	 * being answered 429 at once.
	 */
	@RateLimit(threshold = 2, period = 1, maxWait = "3s")
	@GetMapping("/queue")
	String queue() {
		return "served";
	}

	/**
	 * The limit sits on the service method, not here.
	 */
	@GetMapping("/reports/export")
	Map<String, String> export(@RequestParam String tenant) {
		return Map.of("tenant", tenant, "report", this.reports.export(tenant));
	}

}
