package dev.limiter.ai;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.key.RateLimitKeys;

/**
 * A chat call as Limiter's keys see it: the user is the authenticated principal of the
 * calling thread (Spring Security's), else the address of the servlet request it serves,
 * else every caller together ({@code all}); with a budget per model, the model's name
 * follows.
 */
final class AiCaller implements SurfaceRequest {

	private static final ClassLoader LOADER = AiCaller.class.getClassLoader();

	private static final boolean SECURITY = ClassUtils
		.isPresent("org.springframework.security.core.context.SecurityContextHolder", LOADER);

	private static final boolean SERVLET = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER)
			&& ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER);

	private final String caller;

	private AiCaller(String caller) {
		this.caller = caller;
	}

	/**
	 * The caller of the current thread's call, with the model when budgets are per model.
	 */
	static AiCaller current(String model) {
		String principal = SECURITY ? Security.name() : null;
		String address = SERVLET ? Servlet.address() : null;
		String caller = (principal != null || address != null) ? RateLimitKeys.caller(principal, address) : "all";
		return new AiCaller((model != null) ? caller + ":" + RateLimitKeys.bounded(model) : caller);
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

	/** Read apart, so that an application without a servlet stack never loads it. */
	private static final class Servlet {

		static String address() {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest().getRemoteAddr()
					: null;
		}

	}

}
