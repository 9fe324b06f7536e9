package dev.limiter.call;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;

/**
 * The settings every limit has, whoever declares it: a named limit of
 * {@code limiter.limits}, or a gateway route's limit of its own.
 */
public class LimitSettings {

	/**
	 * Most permits admitted in any window.
	 */
	private Long threshold;

	/**
	 * Length of the window.
	 */
	private Duration period;

	/**
	 * What the limit does when Redis cannot answer in time, instead of the default
	 * policy.
	 */
	private FailurePolicy failurePolicy;

	/**
	 * Algorithm of the limit, instead of the annotation's or the default.
	 */
	private Algorithm algorithm;

	/**
	 * Number of slices of a sliding-buckets window, instead of the annotation's (60 by
	 * default).
	 */
	private Integer slices;

	/**
	 * Whether the limit only watches, instead of the annotation's or limiter.shadow.
	 */
	private Boolean shadow;

	public Boolean getShadow() {
		return this.shadow;
	}

	public void setShadow(Boolean shadow) {
		this.shadow = shadow;
	}

	public Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public Integer getSlices() {
		return this.slices;
	}

	public void setSlices(Integer slices) {
		this.slices = slices;
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

	public FailurePolicy getFailurePolicy() {
		return this.failurePolicy;
	}

	public void setFailurePolicy(FailurePolicy failurePolicy) {
		this.failurePolicy = failurePolicy;
	}

}
