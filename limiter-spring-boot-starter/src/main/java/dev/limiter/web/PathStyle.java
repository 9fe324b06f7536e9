package dev.limiter.web;

/**
 * Whether the default key tells the URIs of one handler apart.
 */
public enum PathStyle {

	/**
	 * One quota per handler method, whatever URI its patterns matched (such as
	 * {@code /orders/{id}}), whatever the path variables and the HTTP method (GET and
	 * HEAD).
	 */
	PATTERN,

	/**
	 * One quota per request path, such as {@code /orders/42}, within the handler; the
	 * path is decoded and freed of matrix parameters, dot segments, double and trailing
	 * slashes.
	 */
	URI

}
