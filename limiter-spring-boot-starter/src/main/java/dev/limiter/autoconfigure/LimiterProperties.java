package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.call.LimitSettings;
import dev.limiter.web.HeaderStyle;
import dev.limiter.web.PathStyle;

/**
 * Configuration properties of Limiter, under {@code limiter}.
 */
@ConfigurationProperties("limiter")
public class LimiterProperties implements InitializingBean {

	/** The aspect's order when none is configured: before transactions and caching. */
	public static final int DEFAULT_ASPECT_ORDER = Integer.MAX_VALUE - 100;

	/**
	 * Whether rate limiting is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Where rate limits are counted: auto (Redis when the application has a
	 * RedisConnectionFactory), redis, or memory (each instance on its own).
	 */
	private Store store = Store.AUTO;

	/**
	 * Prefix of every key the Redis store writes.
	 */
	private String keyPrefix = "limiter:";

	/**
	 * Named limits that @RateLimit(name = "...") refers to; their numbers win over the
	 * annotation's.
	 */
	private final Map<String, NamedLimit> limits = new LinkedHashMap<>();

	/**
	 * Quotas of the upstreams the application calls, by client name: requests of the
	 * auto-configured RestClient, RestTemplate and WebClient builders to a client's hosts
	 * wait for their turn, counted across every instance.
	 */
	private final Map<String, Client> clients = new LinkedHashMap<>();

	/**
	 * Retry budgets by name, shared by every instance: the retries of the calls
	 * annotated @RetryBudget("name"), or made through the RetryBudgets bean, may add at
	 * most a ratio of the first attempts plus a few a second.
	 */
	private final Map<String, RetryBudgetSettings> retryBudgets = new LinkedHashMap<>();

	/**
	 * Algorithm of every limit that does not choose one: sliding-log (exact),
	 * sliding-buckets (bounded memory for big quotas) or token-bucket (bursts).
	 */
	private Algorithm algorithm = Algorithm.SLIDING_LOG;

	/**
	 * Whether every limit only watches: calls it would reject run anyway and are counted
	 * as shadow-rejected; limiter.limits.<name>.shadow overrides it per limit.
	 */
	private boolean shadow;

	/**
	 * Whether rejected calls are recorded too, so that a client that keeps calling stays
	 * locked out.
	 */
	private boolean countRejected;

	/**
	 * Clock that places calls in their windows in the Redis store.
	 */
	private ClockSource clock = ClockSource.REDIS;

	/**
	 * Order of the rate-limit aspect among other advice on the same method.
	 */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	/**
	 * Longest Redis may stay silent on a call before its failure policy decides, while it
	 * has been answering fast; a Redis that has lately answered slowly is waited for
	 * twice its slowest recent answer, up to 500 ms; an answer that Redis gave in time
	 * but a busy JVM has not read yet is waited for up to 1s more.
	 */
	private Duration timeout = Duration.ofMillis(50);

	private final Failure failure = new Failure();

	private final Breaker breaker = new Breaker();

	private final RejectionCache rejectionCache = new RejectionCache();

	private final Memory memory = new Memory();

	private final Web web = new Web();

	/**
	 * Check every property once they are bound.
	 */
	@Override
	public void afterPropertiesSet() {
		LimiterPropertiesValidator.validate(this);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Map<String, NamedLimit> getLimits() {
		return this.limits;
	}

	public Map<String, Client> getClients() {
		return this.clients;
	}

	public Map<String, RetryBudgetSettings> getRetryBudgets() {
		return this.retryBudgets;
	}

	public boolean isCountRejected() {
		return this.countRejected;
	}

	public void setCountRejected(boolean countRejected) {
		this.countRejected = countRejected;
	}

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public boolean isShadow() {
		return this.shadow;
	}

	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	public ClockSource getClock() {
		return this.clock;
	}

	public void setClock(ClockSource clock) {
		this.clock = clock;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Failure getFailure() {
		return this.failure;
	}

	public Breaker getBreaker() {
		return this.breaker;
	}

	public Memory getMemory() {
		return this.memory;
	}

	public RejectionCache getRejectionCache() {
		return this.rejectionCache;
	}

	/**
	 * Return the rejection cache under its former name, {@code limiter.local-cache}.
	 * @return the rejection cache
	 * @deprecated since 1.0.0 for {@link #getRejectionCache()}
	 */
	@Deprecated(since = "1.0.0")
	@DeprecatedConfigurationProperty(replacement = "limiter.rejection-cache", since = "1.0.0")
	public RejectionCache getLocalCache() {
		return this.rejectionCache;
	}

	public Web getWeb() {
		return this.web;
	}

	/**
	 * Where rate limits are counted.
	 */
	public enum Store {

		/**
		 * Redis when the application has a RedisConnectionFactory, otherwise memory.
		 */
		AUTO,

		/**
		 * Redis; the application does not start without a RedisConnectionFactory.
		 */
		REDIS,

		/**
		 * Memory, each instance on its own, even when Redis is there.
		 */
		MEMORY

	}

	/**
	 * The clock that places calls in their windows.
	 */
	public enum ClockSource {

		/**
		 * The Redis server's clock, read inside the script, so that instances agree.
		 */
		REDIS,

		/**
		 * The application's clock, for managed Redis services that refuse TIME in
		 * scripts.
		 */
		CLIENT

	}

	/**
	 * A named limit.
	 */
	public static class NamedLimit extends LimitSettings {

		/**
		 * Threshold that each instance applies on its own under the local failure policy;
		 * 0 for the threshold.
		 */
		private Long localThreshold;

		/**
		 * Calendar whose windows count the limit (minute, hour, day, week or month, from
		 * boundary to boundary in the zone), instead of the annotation's; the period then
		 * plays no part.
		 */
		private String calendar;

		/**
		 * IANA time zone whose clock draws the calendar's boundaries, such as
		 * Europe/Berlin, instead of the annotation's; UTC when neither gives one.
		 */
		private String zone;

		/**
		 * How long a caller the limit rejects stays refused, on every instance, whatever
		 * the window holds by then (such as 1h after 5 failed logins in 15m), instead of
		 * the annotation's; none by default.
		 */
		private Duration penalty;

		/**
		 * Numbers per plan, chosen per call by the annotation's plan expression; a plan
		 * not listed gets the limit's own numbers.
		 */
		private final Map<String, Plan> plans = new LinkedHashMap<>();

		/**
		 * What the limit protects: a caller's quota (refused with 429) or the service's
		 * capacity (refused with 503 and the temporary-reduced-capacity problem, as for
		 * an in-flight limit shared by every caller).
		 */
		private Protects protects = Protects.QUOTA;

		/**
		 * How an adaptive limit (algorithm: adaptive) learns its number of calls in
		 * flight, up to the threshold.
		 */
		private final Adaptive adaptive = new Adaptive();

		public Adaptive getAdaptive() {
			return this.adaptive;
		}

		public Protects getProtects() {
			return this.protects;
		}

		public void setProtects(Protects protects) {
			this.protects = (protects != null) ? protects : Protects.QUOTA;
		}

		public String getCalendar() {
			return this.calendar;
		}

		public void setCalendar(String calendar) {
			this.calendar = calendar;
		}

		public String getZone() {
			return this.zone;
		}

		public void setZone(String zone) {
			this.zone = zone;
		}

		public Duration getPenalty() {
			return this.penalty;
		}

		public void setPenalty(Duration penalty) {
			this.penalty = penalty;
		}

		public Map<String, Plan> getPlans() {
			return this.plans;
		}

		public Long getLocalThreshold() {
			return this.localThreshold;
		}

		public void setLocalThreshold(Long localThreshold) {
			this.localThreshold = localThreshold;
		}

	}

	/**
	 * The quota of one upstream the application calls.
	 */
	public static class Client {

		/**
		 * Host names whose requests count against the quota, at least one.
		 */
		private List<String> hosts = new ArrayList<>();

		/**
		 * Most requests to the hosts in any window, across every instance.
		 */
		private Long threshold;

		/**
		 * Length of the window (1s, 1h).
		 */
		private Duration period;

		/**
		 * Algorithm of the quota, instead of limiter.algorithm; token-bucket paces
		 * requests best, in-flight caps the requests waiting for their response at once
		 * (the period is then the lease).
		 */
		private Algorithm algorithm;

		/**
		 * Longest a request waits for its turn; beyond it, it is not sent and fails.
		 */
		private Duration maxWait = Duration.ofSeconds(30);

		/**
		 * Most tokens the upstream's answers may use in any period, across every instance
		 * (a model provider's tokens per minute): each request reserves an estimate and
		 * is charged the usage its answer reports, where a module such as
		 * limiter-spring-ai reads it.
		 */
		private Long tokens;

		public List<String> getHosts() {
			return this.hosts;
		}

		public void setHosts(List<String> hosts) {
			this.hosts = hosts;
		}

		public Long getThreshold() {
			return this.threshold;
		}

		public void setThreshold(Long threshold) {
			this.threshold = threshold;
		}

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public Long getTokens() {
			return this.tokens;
		}

		public void setTokens(Long tokens) {
			this.tokens = tokens;
		}

	}

	/**
	 * How an adaptive limit learns the calls in flight each instance admits.
	 */
	public static class Adaptive {

		/**
		 * How the limit follows latency: gradient (the round trips against their long-run
		 * baseline), vegas (the queue estimated from the quickest round trip) or aimd
		 * (down on each failure, up by one otherwise).
		 */
		private String strategy = "gradient";

		/**
		 * Calls in flight admitted before anything is learned; 20, or the threshold when
		 * lower.
		 */
		private Integer initial;

		/**
		 * Fewest calls in flight the limit learns down to.
		 */
		private Integer min = 1;

		public String getStrategy() {
			return this.strategy;
		}

		public void setStrategy(String strategy) {
			this.strategy = strategy;
		}

		public Integer getInitial() {
			return this.initial;
		}

		public void setInitial(Integer initial) {
			this.initial = initial;
		}

		public Integer getMin() {
			return this.min;
		}

		public void setMin(Integer min) {
			this.min = min;
		}

	}

	/**
	 * The numbers of a named limit for one plan.
	 */
	public static class Plan {

		/**
		 * Most permits admitted in any window under this plan.
		 */
		private Long threshold;

		/**
		 * Length of the window under this plan; the limit's own when not set.
		 */
		private Duration period;

		/**
		 * Part of an adaptive limit's learned number that calls of this plan may use, in
		 * (0, 1]: the plan is shed first as the limit falls.
		 */
		private Double share;

		public Double getShare() {
			return this.share;
		}

		public void setShare(Double share) {
			this.share = share;
		}

		public Long getThreshold() {
			return this.threshold;
		}

		public void setThreshold(Long threshold) {
			this.threshold = threshold;
		}

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

	}

	/**
	 * A retry budget: how many retries every instance together may make.
	 */
	public static class RetryBudgetSettings {

		/**
		 * Retries may add at most this part of the first attempts made in the last ten
		 * seconds, across every instance: 0.2 for 20%, between 0 and 1.
		 */
		private double ratio = 0.2;

		/**
		 * Retries a second allowed beyond the ratio, so that a quiet service can still
		 * retry.
		 */
		private int minPerSecond = 10;

		public double getRatio() {
			return this.ratio;
		}

		public void setRatio(double ratio) {
			this.ratio = ratio;
		}

		public int getMinPerSecond() {
			return this.minPerSecond;
		}

		public void setMinPerSecond(int minPerSecond) {
			this.minPerSecond = minPerSecond;
		}

	}

	/**
	 * What limits do when Redis cannot answer in time.
	 */
	public static class Failure {

		/**
		 * Policy of limits that set none of their own: local counts each instance in
		 * memory while Redis cannot answer, so limits hold per instance instead of not at
		 * all.
		 */
		private FailurePolicy policy = FailurePolicy.LOCAL;

		/**
		 * HTTP status of a call that a fail-closed limit rejects because Redis is
		 * unavailable: 503 or 429.
		 */
		private int status = 503;

		public FailurePolicy getPolicy() {
			return this.policy;
		}

		public void setPolicy(FailurePolicy policy) {
			this.policy = policy;
		}

		public int getStatus() {
			return this.status;
		}

		public void setStatus(int status) {
			this.status = status;
		}

	}

	/**
	 * The circuit breaker in front of Redis.
	 */
	public static class Breaker {

		/**
		 * Consecutive failed or timed-out calls after which calls stop waiting on Redis.
		 */
		private int failureThreshold = 3;

		/**
		 * How long the breaker stays open before one call probes Redis again.
		 */
		private Duration openDuration = Duration.ofMillis(500);

		public int getFailureThreshold() {
			return this.failureThreshold;
		}

		public void setFailureThreshold(int failureThreshold) {
			this.failureThreshold = failureThreshold;
		}

		public Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(Duration openDuration) {
			this.openDuration = openDuration;
		}

	}

	/**
	 * The rejection cache: each instance remembers who Redis rejected until their
	 * retry-after, and answers them again without asking Redis.
	 */
	public static class RejectionCache {

		/**
		 * Whether a rejected caller is rejected again in this instance without asking
		 * Redis until its retry-after has passed (never when rejected calls are counted).
		 */
		private boolean enabled = true;

		/**
		 * Most rejections remembered at once; beyond, new rejections are not remembered
		 * (those callers ask Redis) until remembered ones expire.
		 */
		private int maximumSize = 10_000;

		/**
		 * Whether a caller the rejection cache holds is answered in Spring MVC and
		 * WebFlux before the handler's arguments are resolved, for methods whose key
		 * needs none or only text the request gives as it stands.
		 */
		private boolean beforeArguments = true;

		public boolean isBeforeArguments() {
			return this.beforeArguments;
		}

		public void setBeforeArguments(boolean beforeArguments) {
			this.beforeArguments = beforeArguments;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaximumSize() {
			return this.maximumSize;
		}

		public void setMaximumSize(int maximumSize) {
			this.maximumSize = maximumSize;
		}

	}

	/**
	 * The in-memory store: of limiter.store=memory, and of the local failure policy.
	 */
	public static class Memory {

		/**
		 * Most caller keys held at once; beyond, the least recently used are evicted and
		 * forget their counts, with a warning at most once a minute.
		 */
		private int maximumKeys = 100_000;

		public int getMaximumKeys() {
			return this.maximumKeys;
		}

		public void setMaximumKeys(int maximumKeys) {
			this.maximumKeys = maximumKeys;
		}

	}

	/**
	 * Settings of the web layer.
	 */
	public class Web {

		/**
		 * Whether the default key gives each request path of a handler its own quota.
		 */
		private PathStyle pathStyle = PathStyle.PATTERN;

		/**
		 * Which rate-limit headers responses carry.
		 */
		private HeaderStyle headers = HeaderStyle.BOTH;

		/**
		 * Whether a request that ends in a server error (5xx) gives back the permits its
		 * limited calls took, so that clients are not charged for the server's failures.
		 */
		private boolean refundServerErrors;

		/**
		 * Return whether cached rejections are answered before the handler's arguments
		 * are resolved, under the former name {@code limiter.web.early-rejection}.
		 * @return whether they are
		 * @deprecated since 1.0.0 for {@link RejectionCache#isBeforeArguments()}
		 */
		@Deprecated(since = "1.0.0")
		@DeprecatedConfigurationProperty(replacement = "limiter.rejection-cache.before-arguments", since = "1.0.0")
		public boolean isEarlyRejection() {
			return LimiterProperties.this.rejectionCache.isBeforeArguments();
		}

		/**
		 * Set whether cached rejections are answered before the handler's arguments are
		 * resolved.
		 * @param earlyRejection whether they are
		 * @deprecated since 1.0.0 for {@link RejectionCache#setBeforeArguments(boolean)}
		 */
		@Deprecated(since = "1.0.0")
		public void setEarlyRejection(boolean earlyRejection) {
			LimiterProperties.this.rejectionCache.setBeforeArguments(earlyRejection);
		}

		public boolean isRefundServerErrors() {
			return this.refundServerErrors;
		}

		public void setRefundServerErrors(boolean refundServerErrors) {
			this.refundServerErrors = refundServerErrors;
		}

		public PathStyle getPathStyle() {
			return this.pathStyle;
		}

		public void setPathStyle(PathStyle pathStyle) {
			this.pathStyle = pathStyle;
		}

		public HeaderStyle getHeaders() {
			return this.headers;
		}

		public void setHeaders(HeaderStyle headers) {
			this.headers = headers;
		}

		public List<Rule> getRules() {
			return this.rules;
		}

		public void setRules(List<Rule> rules) {
			this.rules = rules;
		}

		/**
		 * Limits by path, without code: every rule that matches a request applies, with
		 * the handler's own limits, all or nothing.
		 */
		private List<Rule> rules = new ArrayList<>();

	}

	/**
	 * A rule that limits the requests whose path matches, on Spring MVC and WebFlux.
	 */
	public static class Rule {

		/**
		 * Path patterns (Spring's PathPattern syntax, such as /api/**) a request must
		 * match one of; at least one.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * Path patterns whose requests the rule leaves alone, such as /api/health.
		 */
		private List<String> exclude = new ArrayList<>();

		/**
		 * HTTP methods the rule limits, such as GET and POST; every method when empty.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Names of limits under limiter.limits that apply to the matching requests.
		 */
		private List<String> limits = new ArrayList<>();

		/**
		 * SpEL key of a request, over #headers and #request, such as
		 * #headers.getFirst('X-Api-Key'); the caller when empty.
		 */
		private String key;

		/**
		 * SpEL condition over #headers and #request; a request it does not hold for is
		 * not limited by the rule.
		 */
		private String condition;

		/**
		 * How long a request the rule refuses may wait for its turn before it is
		 * answered, such as 500ms; refused at once when unset.
		 */
		private Duration maxWait;

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getExclude() {
			return this.exclude;
		}

		public void setExclude(List<String> exclude) {
			this.exclude = exclude;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public List<String> getLimits() {
			return this.limits;
		}

		public void setLimits(List<String> limits) {
			this.limits = limits;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public String getCondition() {
			return this.condition;
		}

		public void setCondition(String condition) {
			this.condition = condition;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

	}

	/**
	 * What a limit protects, which decides how its refusal is answered.
	 */
	public enum Protects {

		/** A caller's quota: a refusal is 429 Too Many Requests. */
		QUOTA,

		/** The service's capacity: a refusal is 503 Service Unavailable. */
		CAPACITY

	}

}
