package dev.limiter.web;

/**
 * Which rate-limit headers responses carry; {@code Retry-After} is always sent with a
 * 429.
 */
public enum HeaderStyle {

	/**
	 * Both the IETF and the legacy headers.
	 */
	BOTH,

	/**
	 * The IETF draft-10 {@code RateLimit-Policy} and {@code RateLimit} fields.
	 */
	IETF,

	/**
	 * The {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset} headers.
	 */
	LEGACY,

	/**
	 * No rate-limit headers.
	 */
	NONE

}
