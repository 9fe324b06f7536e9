package dev.limiter.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.lang.Nullable;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.Usage;
import dev.limiter.internal.LogText;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LocalLimit;
import dev.limiter.internal.limits.LimitOverrides.Numbers;
import dev.limiter.internal.limits.LimitOverrides;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.internal.offenders.OffenderRanking;
import dev.limiter.internal.retry.RetryBudgetBalances;
import dev.limiter.internal.store.RateLimitResets;

/**
 * The {@code ratelimits} Actuator endpoint: every limit the application enforces, the
 * usage of one caller under one of them, and a reset of that caller's quota on every
 * instance.
 * <p>
 * A limit is addressed by its name ({@code /actuator/ratelimits/search}), or by the scope
 * of its method, the first part of its keys: {@code n:<name>} when its limits share a
 * name, otherwise {@code m:<class>.<method>}. A name or scope that no limit has is a 404
 * for reads and resets alike. A caller is the rest of the key: {@code u:<user>} or
 * {@code ip:<address>} for the default key, or the value of a SpEL key.
 * <p>
 * A {@code POST} sets an override of a named limit's numbers, or of one caller's, and a
 * field set to {@code null} removes it: the Redis store keeps it for every instance and
 * across restarts, the in-memory store for this instance only.
 * <p>
 * Whatever reaches Redis answers within the limiter's timeout ({@code limiter.timeout})
 * and a little more: when Redis does not answer, a 503 says so and whether anything
 * changed; the list of limits needs no Redis.
 */
@Endpoint(id = "ratelimits", defaultAccess = Access.READ_ONLY)
public class RateLimitsEndpoint {

	private static final Logger logger = LoggerFactory.getLogger(RateLimitsEndpoint.class);

	/** How many of the callers rejected most a limit's description lists. */
	private static final int TOP_REJECTED = 10;

	private final RateLimitOperationSource operations;

	private final RateLimiter rateLimiter;

	private final LimitResolver limits;

	private final FailurePolicy defaultPolicy;

	private final RateLimitResets resets;

	private final OverrideStore overrideStore;

	private final OffenderRanking offenders;

	private RetryBudgetBalances retryBudgets;

	/**
	 * Create the endpoint.
	 * @param operations the rate-limited methods
	 * @param rateLimiter the limiter that counts them
	 * @param limits the limit model, which says where each limit's numbers come from
	 * @param defaultPolicy the failure policy of limits that choose none
	 * ({@code limiter.failure.policy})
	 * @param resets tells the other instances of a reset, or {@code null} with a store
	 * that only this instance sees
	 * @param overrideStore where overrides are kept
	 * @param offenders the callers rejected most
	 */
	RateLimitsEndpoint(RateLimitOperationSource operations, RateLimiter rateLimiter, LimitResolver limits,
			FailurePolicy defaultPolicy, RateLimitResets resets, OverrideStore overrideStore,
			OffenderRanking offenders) {
		this.operations = operations;
		this.rateLimiter = rateLimiter;
		this.limits = limits;
		this.defaultPolicy = defaultPolicy;
		this.resets = resets;
		this.overrideStore = overrideStore;
		this.offenders = offenders;
	}

	/**
	 * List every rate-limited method and its limits.
	 * @return the limits, by scope
	 */
	@ReadOperation
	public Map<String, Object> limits() {
		Map<String, Object> limits = new java.util.TreeMap<>();
		for (AnnotatedOperation operation : this.operations.getOperations()) {
			limits.put(operation.getScope(), describe(operation));
		}
		Map<String, Object> budgets = (this.retryBudgets != null) ? this.retryBudgets.describe() : Map.of();
		return budgets.isEmpty() ? Map.of("limits", limits) : Map.of("limits", limits, "retryBudgets", budgets);
	}

	/**
	 * Show the retry budgets in the listing too.
	 * @param retryBudgets the budgets, or {@code null} for none
	 */
	void setRetryBudgets(RetryBudgetBalances retryBudgets) {
		this.retryBudgets = retryBudgets;
	}

	/**
	 * Read the usage of one caller under a limit, without counting anything, or describe
	 * the limit when no caller is given.
	 * @param name the limit's name, such as {@code search}, or the scope of an unnamed
	 * limit, such as {@code m:com.example.Mailer.send}
	 * @param key the caller, such as {@code u:alice}, or {@code null} to describe the
	 * limit
	 * @return the usage (under each plan too, when the limit has plans) or the
	 * description; a 404 when no limit has that name or scope, a 503 when Redis does not
	 * answer within the limiter's timeout
	 */
	// Spring's @Nullable, which Actuator reads on Boot 3.5 and 4.x alike, makes the key
	// optional.
	@ReadOperation
	@SuppressWarnings("deprecation")
	public WebEndpointResponse<Map<String, Object>> usage(@Selector String name, @Nullable String key) {
		AnnotatedOperation operation = operation(name);
		if (operation == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		try {
			return new WebEndpointResponse<>((key != null) ? read(operation, key) : describeWithRankings(operation),
					WebEndpointResponse.STATUS_OK);
		}
		catch (RuntimeException ex) {
			if (!StoreFailures.isStore(ex)) {
				throw ex;
			}
			return StoreFailures.read(ex);
		}
	}

	private Map<String, Object> describeWithRankings(AnnotatedOperation operation) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("scope", operation.getScope());
		described.putAll(describe(operation));
		Map<String, Object> topRejected = new LinkedHashMap<>();
		for (Limit limit : operation.getLimits()) {
			topRejected.put(limit.name(),
					this.offenders.top(operation.ranking(limit), TOP_REJECTED)
						.stream()
						.map((offender) -> Map.of("key", offender.key(), "rejections", offender.rejections()))
						.toList());
		}
		described.put("topRejected", topRejected);
		return described;
	}

	// Throws what the store throws when Redis does not answer.
	private Map<String, Object> read(AnnotatedOperation operation, String key) {
		String fullKey = operation.key(key);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("key", fullKey);
		List<Object> limits = usage(fullKey, operation, null);
		result.put("limits", limits);
		boolean known = counts(limits);
		if (!operation.getPlans().isEmpty()) {
			Map<String, Object> plans = new LinkedHashMap<>();
			for (Map.Entry<String, AnnotatedOperation> plan : operation.getPlans().entrySet()) {
				List<Object> planned = usage(fullKey, plan.getValue(), plan.getKey());
				known |= counts(planned);
				plans.put(plan.getKey(), planned);
			}
			result.put("plans", plans);
		}
		// a key written wrong reads as a fresh quota: say that nothing is counted for it
		result.put("known", known);
		return result;
	}

	/**
	 * Reset one caller's quota under a limit, under every plan, on every instance.
	 * @param name the limit's name, such as {@code search}, or the scope of an unnamed
	 * limit, such as {@code m:com.example.Mailer.send}
	 * @param key the caller, such as {@code u:alice}
	 * @return the reset key, or a 404 when no limit has that name or scope: an operator's
	 * typo must never look like a reset
	 */
	@DeleteOperation
	public Object reset(@Selector String name, String key) {
		AnnotatedOperation operation = operation(name);
		if (operation == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		String refused = refusedKey(key);
		if (refused != null) {
			return new WebEndpointResponse<>(Map.of("error", refused), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		// a reset sent and not answered, or one of several made, may have changed counts
		boolean sent = false;
		boolean made = false;
		try {
			if (!Boolean.TRUE.equals(read(operation, key).get("known"))) {
				// a reset of nothing must not look like one: the key may be written wrong
				return new WebEndpointResponse<>(Map.of("error",
						"nothing is counted for key '" + escaped(key) + "' under '" + escaped(name)
								+ "': write the key as the limiter shows it (GET " + "/actuator/ratelimits/"
								+ escaped(name) + " lists the callers it rejected; a hashed key's # is "
								+ "%23 in a URL)"),
						WebEndpointResponse.STATUS_NOT_FOUND);
			}
			String fullKey = operation.key(key);
			List<AnnotatedOperation> all = new ArrayList<>(operation.getPlans().values());
			all.add(0, operation);
			for (AnnotatedOperation planned : all) {
				if (!planned.getEnforcedLimits().isEmpty()) {
					sent = true;
					this.rateLimiter.reset(fullKey, planned.getEnforcedLimits());
					made = true;
				}
				if (!planned.getShadowLimits().isEmpty()) {
					sent = true;
					this.rateLimiter.reset(planned.shadowKey(fullKey), planned.getShadowLimits());
					made = true;
				}
			}
			if (this.resets != null) {
				this.resets.published(fullKey);
			}
			return Map.of("reset", fullKey);
		}
		catch (RuntimeException ex) {
			if (!StoreFailures.isStore(ex)) {
				throw ex;
			}
			return StoreFailures.change(ex, sent, made,
					"GET /actuator/ratelimits/" + escaped(name) + "?key=" + escaped(key));
		}
	}

	/**
	 * Set an override of a named limit's numbers (and of its plans'), or of one caller's
	 * numbers under it; without numbers, remove it and let the configured ones apply
	 * again. A bad value is a 400 that names it, and changes nothing.
	 * @param name the limit's name, such as {@code search}
	 * @param key the caller, such as {@code u:alice}, for that caller's own numbers, or
	 * {@code null} for the limit's
	 * @param threshold the threshold, or {@code null} to keep the configured one
	 * @param period the period, such as {@code 1m} or {@code PT30S}, or {@code null} to
	 * keep the configured one
	 * @param plans the numbers of the limit's plans, such as {@code {"pro": {"threshold":
	 * 100}}} (over HTTP written with flat fields, {@code {"plans.pro.threshold": 100}},
	 * which {@code OverrideBodies} gathers), or {@code null}
	 * @param securityContext who sets it, for the log
	 * @return what applies now, a 400 naming a bad value, or a 404 when no limit has that
	 * name
	 */
	@WriteOperation
	public WebEndpointResponse<Map<String, Object>> override(@Selector String name, @Nullable String key,
			@Nullable Long threshold, @Nullable String period, @Nullable Map<String, Object> plans,
			SecurityContext securityContext) {
		AnnotatedOperation operation = operation(name);
		if (operation == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		LimitOverrides.NamedOverride override;
		try {
			String refused = refusedKey(key);
			if (refused != null) {
				throw new IllegalArgumentException(refused);
			}
			// a named limit may be written by its scope too, n:<name>, as everywhere else
			if (name.startsWith("n:") && operation.getScope().equals(name)) {
				return override(name.substring(2), key, threshold, period, plans, securityContext);
			}
			if (operation.getLimits().stream().noneMatch((limit) -> limit.name().equals(name))) {
				throw new IllegalArgumentException("'" + name + "' is the scope of unnamed limits: only a named limit "
						+ "(limiter.limits.<name>, or @RateLimit(name = ...)) can be overridden");
			}
			Numbers numbers = new Numbers(threshold, duration("period", period));
			Map<String, Numbers> planNumbers = planNumbers(name, key, plans);
			this.operations.checkNumbers(name, numbers, planNumbers);
			override = new LimitOverrides.NamedOverride(numbers, planNumbers);
		}
		catch (IllegalArgumentException ex) {
			return new WebEndpointResponse<>(Map.of("error", ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		String who = (securityContext.getPrincipal() != null) ? securityContext.getPrincipal().getName()
				: "an unauthenticated caller";
		String fullKey = (key != null) ? operation.key(key) : null;
		String before = describe(name, fullKey);
		try {
			if (fullKey != null) {
				this.overrideStore.setCaller(name, fullKey, override.numbers());
			}
			else {
				this.overrideStore.setNamed(name, override);
			}
		}
		catch (RuntimeException ex) {
			if (!StoreFailures.isStore(ex)) {
				throw ex;
			}
			logger.warn("Limiter: {} could not change the override of limit '{}'{}: Redis did not take it ({})",
					escaped(who), escaped(name), (fullKey != null) ? " for " + escaped(fullKey) : "",
					escaped(String.valueOf(ex.getMessage())));
			return StoreFailures.change(ex, true, false, "GET /actuator/ratelimits/" + escaped(name));
		}
		String after = describe(name, fullKey);
		logger.info("Limiter: {} changed the override of limit '{}'{} from {} to {}{}", escaped(who), escaped(name),
				(fullKey != null) ? " for " + escaped(fullKey) : "", before, after,
				this.overrideStore.isShared() ? "" : " (this instance only)");
		Map<String, Object> answer = new LinkedHashMap<>();
		answer.put("name", name);
		if (fullKey != null) {
			answer.put("key", fullKey);
		}
		answer.put("override", override.isEmpty() ? null : numbers(override.numbers(), override.plans()));
		answer.put("configured", configured(name));
		answer.put("appliesTo", this.overrideStore.isShared() ? "every instance"
				: "this instance only: the in-memory store keeps overrides for the instance that set them");
		return new WebEndpointResponse<>(answer, WebEndpointResponse.STATUS_OK);
	}

	/**
	 * Return a caller's full key under a limit, as overrides and counts keep it.
	 * @param name the limit's name or scope
	 * @param key the caller, such as {@code u:alice}
	 * @return the full key, or {@code null} when no limit has that name or scope
	 */
	String callerKey(String name, String key) {
		AnnotatedOperation operation = operation(name);
		return (operation != null) ? operation.key(key) : null;
	}

	/**
	 * The longest caller key the endpoint takes: longer parts are hashed in real keys.
	 */
	static final int MAX_KEY_LENGTH = 256;

	/**
	 * Return why a caller key is refused, or {@code null}: no real caller has a key with
	 * control characters or past {@value #MAX_KEY_LENGTH} characters (the key resolver
	 * hashes such parts), and one written into the overrides would be re-read by every
	 * instance and written into their logs.
	 */
	static String refusedKey(String key) {
		if (key == null) {
			return null;
		}
		if (key.length() > MAX_KEY_LENGTH) {
			return "key: " + key.length() + " characters, more than any caller's key (" + MAX_KEY_LENGTH
					+ "); write the key as the limiter shows it (GET /actuator/ratelimits/{name} lists callers)";
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c < 0x20 || c == 0x7f) {
				return "key: a control character (\\u" + String.format("%04x", (int) c) + ") at " + i
						+ ", which no caller's key has; write the key as the limiter shows it";
			}
		}
		return null;
	}

	/** A value from a request or an operator as it may appear in the log: one line. */
	static String escaped(String value) {
		return LogText.oneLine(value);
	}

	private Map<String, Numbers> planNumbers(String name, String key, Map<String, Object> plans) {
		Map<String, Numbers> planNumbers = new LinkedHashMap<>();
		if (plans == null || plans.isEmpty()) {
			return planNumbers;
		}
		if (key != null) {
			throw new IllegalArgumentException(
					"plans: a caller's override has its own threshold and period, not plans");
		}
		LimitAttributes configured = this.limits.named().get(name);
		java.util.Set<String> known = (configured != null) ? configured.plans().keySet() : java.util.Set.of();
		plans.forEach((plan, value) -> {
			if (!known.contains(plan)) {
				throw new IllegalArgumentException(
						"plans." + plan + ": limit '" + name + "' has no plan '" + plan + "' under limiter.limits."
								+ name + ".plans" + (known.isEmpty() ? "" : " (plans: " + known + ")"));
			}
			if (value != null && !(value instanceof Map)) {
				throw new IllegalArgumentException(
						"plans." + plan + ": give an object such as {\"threshold\": 100, \"period\": \"1m\"}");
			}
			Map<?, ?> given = (value != null) ? (Map<?, ?>) value : Map.of();
			Object planThreshold = given.get("threshold");
			// over HTTP every value is text ({"plans.pro.threshold": "500"})
			if (planThreshold instanceof String text && text.strip().matches("[-+]?\\d{1,18}")) {
				planThreshold = Long.parseLong(text.strip());
			}
			if (planThreshold != null && !isWholeLong(planThreshold)) {
				throw new IllegalArgumentException(
						"plans." + plan + ".threshold: '" + planThreshold + "' is not a whole number");
			}
			Object planPeriod = given.get("period");
			planNumbers.put(plan, new Numbers((planThreshold != null) ? ((Number) planThreshold).longValue() : null,
					duration("plans." + plan + ".period", (planPeriod != null) ? planPeriod.toString() : null)));
		});
		return planNumbers;
	}

	// JSON numbers arrive as Integer, Long, BigInteger or a decimal: only an exact long
	// is a threshold, so that a fraction or an overflow is refused rather than truncated.
	private static boolean isWholeLong(Object value) {
		if (value instanceof Integer || value instanceof Long) {
			return true;
		}
		return value instanceof java.math.BigInteger big && big.bitLength() < 64;
	}

	private static java.time.Duration duration(String field, String text) {
		if (text == null || text.isBlank()) {
			return null;
		}
		if (text.strip().matches("[-+]?\\d+")) {
			// A bare number would be read as milliseconds: 60 meant as a minute would
			// become 60 ms.
			throw new IllegalArgumentException(
					field + ": '" + text.strip() + "' has no unit (write it as 1m, 30s, 500ms or PT1M)");
		}
		try {
			return DurationStyle.detectAndParse(text.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					field + ": '" + text + "' is not a duration (write it as 1m, 30s, 500ms or PT1M)");
		}
	}

	private String describe(String name, String fullKey) {
		if (fullKey != null) {
			Numbers own = this.limits.overrides().callers().getOrDefault(name, Map.of()).get(fullKey);
			return (own != null) ? text(own) : "none";
		}
		LimitOverrides.NamedOverride override = this.limits.overrides().named().get(name);
		return (override != null) ? text(override.numbers()) + (override.plans().isEmpty() ? ""
				: ", plans " + override.plans()
					.entrySet()
					.stream()
					.map((plan) -> plan.getKey() + ": " + text(plan.getValue()))
					.toList())
				: "none";
	}

	private static String text(Numbers numbers) {
		return "threshold " + ((numbers.threshold() != null) ? numbers.threshold() : "as configured") + ", period "
				+ ((numbers.period() != null) ? periodText(numbers.period()) : "as configured");
	}

	private static Map<String, Object> numbers(Numbers numbers, Map<String, Numbers> plans) {
		Map<String, Object> described = new LinkedHashMap<>();
		if (numbers.threshold() != null) {
			described.put("threshold", numbers.threshold());
		}
		if (numbers.period() != null) {
			described.put("period", periodText(numbers.period()));
		}
		if (!plans.isEmpty()) {
			Map<String, Object> planned = new LinkedHashMap<>();
			plans.forEach((plan, planNumbers) -> planned.put(plan, numbers(planNumbers, Map.of())));
			described.put("plans", planned);
		}
		return described;
	}

	private Map<String, Object> configured(String name) {
		for (AnnotatedOperation operation : this.operations.getOperations()) {
			for (Limit limit : operation.getLimits()) {
				if (limit.name().equals(name)) {
					Map<String, Object> configured = new LinkedHashMap<>();
					configured.put("threshold", limit.threshold());
					configured.put("period", limit.periodText());
					return configured;
				}
			}
		}
		return Map.of();
	}

	private static String periodText(java.time.Duration period) {
		return period.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
	}

	private List<Object> usage(String fullKey, AnnotatedOperation operation, String plan) {
		List<Object> usage = new ArrayList<>();
		List<Limit> limits = this.limits.overrides().apply(operation.getLimits(), plan, plan != null, fullKey);
		// Shadowed limits beside enforced ones count under a key apart; the rows keep the
		// limits' order.
		List<Limit> enforced = new ArrayList<>();
		List<Limit> shadowed = new ArrayList<>();
		for (int i = 0; i < limits.size(); i++) {
			if (limits.get(i).algorithm().isStored()) {
				(operation.isShadow(operation.getLimits().get(i)) ? shadowed : enforced).add(limits.get(i));
			}
		}
		java.util.Iterator<Usage> enforcedUsage = enforced.isEmpty() ? java.util.Collections.emptyIterator()
				: this.rateLimiter.usage(fullKey, enforced).iterator();
		java.util.Iterator<Usage> shadowedUsage = shadowed.isEmpty() ? java.util.Collections.emptyIterator()
				: this.rateLimiter.usage(operation.shadowKey(fullKey), shadowed).iterator();
		for (int i = 0; i < limits.size(); i++) {
			if (!limits.get(i).algorithm().isStored()) {
				// learned per instance, whoever calls: this instance's number and calls
				usage.add(adaptive(limits.get(i)));
				continue;
			}
			Usage used = operation.isShadow(operation.getLimits().get(i)) ? shadowedUsage.next() : enforcedUsage.next();
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("name", used.limit().name());
			row.put("threshold", used.limit().threshold());
			row.put("period", used.limit().periodText());
			row.put("used", used.used());
			row.put("remaining", used.remaining());
			if (used.limit().algorithm() == Algorithm.IN_FLIGHT) {
				// no window: the calls running, and when the latest lease ends unless
				// renewed
				row.put("inFlight", used.used());
				row.put("leaseEndsAfterMillis", used.resetAfter().toMillis());
			}
			else {
				row.put("resetAfterMillis", used.resetAfter().toMillis());
			}
			if (used.currentSlice() >= 0) {
				row.put("currentSlice", used.currentSlice());
			}
			if (!used.limit().penalty().isZero()) {
				// a caller the limit rejected is refused for this long whatever the
				// window
				// holds; a reset lifts it
				row.put("penalty", periodText(used.limit().penalty()));
				row.put("penaltyEndsAfterMillis", used.penalty().toMillis());
			}
			usage.add(row);
		}
		return usage;
	}

	/** Whether any limit counts something for the key: permits used, or a window open. */
	private static boolean counts(List<Object> rows) {
		for (Object listed : rows) {
			Map<?, ?> row = (Map<?, ?>) listed;
			// an adaptive limit's row is this instance's, whoever the caller
			if (row.get("used") instanceof Number used && used.longValue() > 0) {
				return true;
			}
			Object reset = row.containsKey("resetAfterMillis") ? row.get("resetAfterMillis")
					: row.get("leaseEndsAfterMillis");
			if (reset instanceof Number millis && millis.longValue() > 0) {
				return true;
			}
			if (row.get("penaltyEndsAfterMillis") instanceof Number millis && millis.longValue() > 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return the operation of a scope, or of a limit's name: the methods that share the
	 * name ({@code n:<name>}), else the one method whose limits carry it.
	 */
	private AnnotatedOperation operation(String nameOrScope) {
		String named = LimitResolver.scope(List.of(nameOrScope), nameOrScope);
		AnnotatedOperation carrying = null;
		int carriers = 0;
		for (AnnotatedOperation operation : this.operations.getOperations()) {
			if (operation.getScope().equals(nameOrScope) || operation.getScope().equals(named)) {
				return operation;
			}
			if (operation.getLimits().stream().anyMatch((limit) -> limit.name().equals(nameOrScope))) {
				carrying = operation;
				carriers++;
			}
		}
		return (carriers == 1) ? carrying : null;
	}

	private Map<String, Object> describe(AnnotatedOperation operation) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put((operation.getMethod() != null) ? "method" : "route", operation.getDescription());
		described.put("key", operation.getKeySource().isEmpty() ? "default" : operation.getKeySource());
		described.put("permits", operation.getPermits());
		if (operation.getChargeSource() != null) {
			described.put("charge", operation.getChargeSource());
		}
		List<Object> limitList = new ArrayList<>();
		for (Limit limit : operation.getLimits()) {
			limitList.add(describe(operation, limit));
		}
		described.put("limits", limitList);
		return described;
	}

	/**
	 * Return what this instance has learned of an adaptive limit: the configured most,
	 * the number learned, the calls in flight, the strategy.
	 */
	private Map<String, Object> adaptive(Limit limit) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("name", limit.name());
		described.put("algorithm", limit.algorithm().text());
		described.put("threshold", limit.threshold());
		LocalLimit local = this.limits.local().get(limit.name());
		if (local != null) {
			described.put("learned", local.learned().limit());
			described.put("inFlight", local.learned().inFlight());
		}
		LimitAttributes configured = this.limits.named().get(limit.name());
		if (configured != null && configured.adaptive() != null && configured.adaptive().strategy() != null) {
			described.put("strategy", configured.adaptive().strategy());
		}
		if (configured != null && !configured.plans().isEmpty()) {
			Map<String, Object> shares = new LinkedHashMap<>();
			configured.plans().forEach((plan, numbers) -> shares.put(plan, numbers.share()));
			described.put("shares", shares);
		}
		described.put("source", "limiter.limits." + limit.name());
		return described;
	}

	private Map<String, Object> describe(AnnotatedOperation operation, Limit limit) {
		if (limit.algorithm() == Algorithm.ADAPTIVE) {
			return adaptive(limit);
		}
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("name", limit.name());
		described.put("threshold", limit.threshold());
		described.put("period", limit.periodText());
		described.put("algorithm", limit.algorithm().text());
		if (limit.algorithm() == Algorithm.IN_FLIGHT) {
			described.put("lease", limit.periodText());
		}
		if (limit.algorithm() == Algorithm.SLIDING_BUCKETS) {
			described.put("slices", limit.slices());
		}
		if (limit.zone() != null) {
			described.put("zone", limit.zone().getId());
		}
		if (!limit.penalty().isZero()) {
			described.put("penalty", periodText(limit.penalty()));
		}
		FailurePolicy policy = (limit.failurePolicy() != null) ? limit.failurePolicy() : this.defaultPolicy;
		described.put("failurePolicy", policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
		described.put("shadow", operation.isShadow(limit));
		LimitAttributes configured = this.limits.named().get(limit.name());
		boolean fromConfiguration = configured != null
				&& (configured.threshold() != null || configured.period() != null);
		String source = fromConfiguration ? "limiter.limits." + limit.name() : "annotation";
		LimitOverrides.NamedOverride override = this.limits.overrides().named().get(limit.name());
		if (override != null && !override.numbers().isEmpty()) {
			Limit overridden = override.numbers().applyTo(limit);
			described.put("threshold", overridden.threshold());
			described.put("period", overridden.periodText());
			described.put("source", "override");
			described.put("configured",
					Map.of("threshold", limit.threshold(), "period", limit.periodText(), "source", source));
		}
		else {
			described.put("source", source);
		}
		if (override != null && !override.plans().isEmpty()) {
			described.put("planOverrides", numbers(Numbers.NONE, override.plans()).get("plans"));
		}
		Map<String, Numbers> callers = this.limits.overrides().callers().get(limit.name());
		if (callers != null) {
			Map<String, Object> own = new java.util.TreeMap<>();
			callers.forEach((key, numbers) -> own.put(key, numbers(numbers, Map.of())));
			described.put("callerOverrides", own);
		}
		return described;
	}

}
