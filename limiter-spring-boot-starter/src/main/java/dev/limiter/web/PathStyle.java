package dev.limiter.web;

/**
 * How the default key names the route of an HTTP request.
 */
public enum PathStyle {

	/**
	 * The matched handler pattern, such as {@code /orders/{id}}: one quota per route
	 * whatever the path variables.
	 */
	PATTERN,

	/**
	 * The raw request URI, such as {@code /orders/42}: one quota per URI.
	 */
	URI

}
