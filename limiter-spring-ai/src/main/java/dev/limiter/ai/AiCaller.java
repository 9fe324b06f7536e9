package dev.limiter.ai;

import java.net.InetSocketAddress;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.key.RateLimitKeys;

/**
 * A chat call as Limiter's keys see it: the user named in the call's advisor context
 * ({@link TokenBudgetAdvisor#CALLER}), else the authenticated principal of the calling
 * thread (Spring Security's) or, for a stream, of the subscriber's reactive context, else
 * the address of the request it serves (servlet, or the exchange Spring Security puts in
 * the reactive context), else every caller together ({@code all}); with a budget per
 * model, the model's name follows.
 */
final class AiCaller implements SurfaceRequest {

	private static final ClassLoader LOADER = AiCaller.class.getClassLoader();

	private static final boolean SECURITY = ClassUtils
		.isPresent("org.springframework.security.core.context.SecurityContextHolder", LOADER);

	private static final boolean SERVLET = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER)
			&& ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER);

	private static final boolean REACTIVE_SECURITY = SECURITY
			&& ClassUtils.isPresent("reactor.core.publisher.Mono", LOADER)
			&& ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange", LOADER);

	private final String caller;

	private AiCaller(String caller) {
		this.caller = caller;
	}

	/**
	 * The caller of the current thread's call, with the model when budgets are per model.
	 * @param named the user the call's advisor context names, or {@code null}
	 * @param model the model, or {@code null}
	 */
	static AiCaller current(Object named, String model) {
		if (named != null) {
			return of(String.valueOf(named), null, model);
		}
		return of(SECURITY ? Security.name() : null, SERVLET ? Servlet.address() : null, model);
	}

	/**
	 * The caller of a stream: the current thread's, else the subscriber's reactive
	 * context's principal or exchange.
	 * @param named the user the call's advisor context names, or {@code null}
	 * @param model the model, or {@code null}
	 */
	static Mono<AiCaller> subscriber(Object named, String model) {
		AiCaller current = current(named, model);
		if (!current.isEveryone(model) || !REACTIVE_SECURITY) {
			return Mono.just(current);
		}
		return ReactiveSecurity.caller(model).defaultIfEmpty(current);
	}

	private static AiCaller of(String principal, String address, String model) {
		String caller = ((principal != null && !principal.isEmpty()) || address != null)
				? RateLimitKeys.caller(principal, address) : "all";
		return new AiCaller((model != null) ? caller + ":" + RateLimitKeys.bounded(model) : caller);
	}

	private boolean isEveryone(String model) {
		return this.caller.equals((model != null) ? "all:" + RateLimitKeys.bounded(model) : "all");
	}

	@Override
	public String caller() {
		return this.caller;
	}

	@Override
	public Object variable(String name) {
		return null;
	}

	/** Read apart, so that an application without Spring Security never loads it. */
	private static final class Security {

		static String name() {
			Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
			return (authentication != null && authentication.isAuthenticated()
					&& !(authentication instanceof AnonymousAuthenticationToken)) ? authentication.getName() : null;
		}

	}

	/**
	 * Read apart, so that an application without Spring Security or reactive web never
	 * loads it: the principal Spring Security keeps in the subscriber's context, else the
	 * address of the exchange it keeps there.
	 */
	private static final class ReactiveSecurity {

		static Mono<AiCaller> caller(String model) {
			Mono<String> principal = ReactiveSecurityContextHolder.getContext()
				.mapNotNull(SecurityContext::getAuthentication)
				.filter((authentication) -> authentication.isAuthenticated()
						&& !(authentication instanceof AnonymousAuthenticationToken))
				.map(Authentication::getName);
			return principal.map((name) -> of(name, null, model)).switchIfEmpty(Mono.deferContextual((context) -> {
				ServerWebExchange exchange = context.getOrDefault(ServerWebExchange.class, null);
				InetSocketAddress remote = (exchange != null) ? exchange.getRequest().getRemoteAddress() : null;
				if (remote == null) {
					return Mono.empty();
				}
				String address = (remote.getAddress() != null) ? remote.getAddress().getHostAddress()
						: remote.getHostString();
				return Mono.just(of(null, address, model));
			}));
		}

	}

	/** Read apart, so that an application without a servlet stack never loads it. */
	private static final class Servlet {

		static String address() {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest().getRemoteAddr()
					: null;
		}

	}

}
