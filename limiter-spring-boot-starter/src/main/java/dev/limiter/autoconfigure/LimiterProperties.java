package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.limiter.web.HeaderStyle;
import dev.limiter.web.PathStyle;

/**
 * Configuration properties of Limiter, under {@code limiter}.
 */
@ConfigurationProperties("limiter")
public class LimiterProperties {

	/** The aspect's order when none is configured: before transactions and caching. */
	public static final int DEFAULT_ASPECT_ORDER = Integer.MAX_VALUE - 100;

	/**
	 * Whether rate limiting is enabled.
	 */
	private boolean enabled = true;

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

	private final Web web = new Web();

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

	public boolean isCountRejected() {
		return this.countRejected;
	}

	public void setCountRejected(boolean countRejected) {
		this.countRejected = countRejected;
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

	public Web getWeb() {
		return this.web;
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
	public static class NamedLimit {

		/**
		 * Most permits admitted in any window.
		 */
		private Long threshold;

		/**
		 * Length of the window.
		 */
		private Duration period;

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
	 * Settings of the web layer.
	 */
	public static class Web {

		/**
		 * How the default key names the route of a request.
		 */
		private PathStyle pathStyle = PathStyle.PATTERN;

		/**
		 * Which rate-limit headers responses carry.
		 */
		private HeaderStyle headers = HeaderStyle.BOTH;

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

	}

}
