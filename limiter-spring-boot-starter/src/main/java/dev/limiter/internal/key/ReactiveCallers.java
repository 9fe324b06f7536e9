package dev.limiter.internal.key;

import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import reactor.core.publisher.Mono;

/**
 * Who makes a call, as {@link Callers} says it, read from the subscriber's reactive
 * context; loaded only where Spring Security and Reactor are
 * ({@link Callers#reactive()}).
 */
public final class ReactiveCallers {

	private ReactiveCallers() {
	}

	/**
	 * Return the name of the principal Spring Security keeps in the subscriber's reactive
	 * context, the anonymous token excluded.
	 * @return the name, or empty without one
	 */
	public static Mono<String> principal() {
		return ReactiveSecurityContextHolder.getContext()
			.mapNotNull(SecurityContext::getAuthentication)
			.mapNotNull(Callers.Security::name);
	}

}
