/**
 * Spring WebFlux support, beside {@link dev.limiter.web.servlet}: empty until the
 * reactive stack gets its current request, key resolver and rejection handler.
 */
package dev.limiter.web.reactive;
