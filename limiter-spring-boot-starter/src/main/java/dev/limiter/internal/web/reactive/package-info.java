/**
 * Spring WebFlux: the default key of an exchange, the exchange as the current request,
 * the 429 handler and the quota headers of admitted calls.
 */
package dev.limiter.internal.web.reactive;
