package dev.limiter.internal.key;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

import dev.limiter.key.RateLimitKeys;

/**
 * Who makes a call that is no web request of Limiter's own stacks (a gRPC call, a GraphQL
 * operation, a chat call), the one rule for every such surface: the authenticated
 * principal (Spring Security's, of the calling thread or of the subscriber's reactive
 * context; its anonymous token is nobody), else the client's address where there is one,
 * else every caller together ({@code all}). The application's own
 * {@code RateLimitKeyResolver}, where it has one, is asked before this rule
 * ({@code CallPreparation}).
 */
public final class Callers {

	/** The caller of a call that has neither a principal nor an address. */
	public static final String EVERYONE = "all";

	private static final ClassLoader LOADER = Callers.class.getClassLoader();

	private static final boolean SECURITY = ClassUtils
		.isPresent("org.springframework.security.core.context.SecurityContextHolder", LOADER);

	private static final boolean REACTIVE_SECURITY = SECURITY
			&& ClassUtils.isPresent("reactor.core.publisher.Mono", LOADER);

	private Callers() {
	}

	/**
	 * Return the caller part of a key: {@code u:<principal>}, else {@code ip:<address>},
	 * else {@code all}, bounded.
	 * @param principal the principal's name, or {@code null}
	 * @param address the client's address, or {@code null}
	 * @return the caller, such as {@code u:alice}
	 */
	public static String caller(String principal, String address) {
		if ((principal == null || principal.isEmpty()) && (address == null || address.isEmpty())) {
			return EVERYONE;
		}
		return RateLimitKeys.caller(principal, address);
	}

	/**
	 * Return the name of the principal Spring Security holds for the calling thread.
	 * @return the name, or {@code null} without Spring Security, without an
	 * authentication, and for the anonymous token
	 */
	public static String principal() {
		return SECURITY ? Security.name() : null;
	}

	/**
	 * Return whether a principal can be read from a reactive context: Spring Security and
	 * Reactor are there ({@link ReactiveCallers}).
	 * @return whether a reactive context can hold one
	 */
	public static boolean reactive() {
		return REACTIVE_SECURITY;
	}

	/** Read apart, so that an application without Spring Security never loads it. */
	static final class Security {

		static String name() {
			return name(SecurityContextHolder.getContext().getAuthentication());
		}

		static String name(Authentication authentication) {
			// the anonymous token of an open endpoint is nobody: callers then go by
			// address
			return (authentication != null && authentication.isAuthenticated()
					&& !(authentication instanceof AnonymousAuthenticationToken)) ? authentication.getName() : null;
		}

	}

}
