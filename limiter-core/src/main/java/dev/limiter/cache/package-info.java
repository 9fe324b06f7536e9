/**
 * Decorators that answer some calls in the JVM, without asking the shared store.
 */
package dev.limiter.cache;
