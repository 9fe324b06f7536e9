package dev.limiter.ai;

import java.net.InetSocketAddress;

import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.internal.key.Callers;
import dev.limiter.internal.key.ReactiveCallers;
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

	private static final boolean SERVLET = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LOADER)
			&& ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder", LOADER);

	private static final boolean REACTIVE_SECURITY = Callers.reactive()
			&& ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange", LOADER);

	private final String caller;

	private final boolean named;

	private final String model;

	private AiCaller(String caller, boolean named, String model) {
		this.caller = caller;
		this.named = named;
		this.model = model;
	}

	/**
	 * The caller of the current thread's call, with the model when budgets are per model.
	 * @param named the user the call's advisor context names, or {@code null}
	 * @param model the model, or {@code null}
	 */
	static AiCaller current(Object named, String model) {
		if (named != null) {
			AiCaller own = of(String.valueOf(named), null, model);
			return new AiCaller(own.caller, true, model);
		}
		return of(Callers.principal(), SERVLET ? Servlet.address() : null, model);
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
		String caller = Callers.caller(principal, address);
		return new AiCaller(perModel(caller, model), false, model);
	}

	private static String perModel(String caller, String model) {
		return (model != null) ? caller + ":" + RateLimitKeys.bounded(model) : caller;
	}

	private boolean isEveryone(String model) {
		return this.caller
			.equals((model != null) ? Callers.EVERYONE + ":" + RateLimitKeys.bounded(model) : Callers.EVERYONE);
	}

	@Override
	public String caller() {
		return this.caller;
	}

	@Override
	public boolean namesCaller() {
		return this.named;
	}

	@Override
	public String qualified(String caller) {
		return perModel(caller, this.model);
	}

	@Override
	public Object variable(String name) {
		return null;
	}

	/**
	 * Read apart, so that an application without Spring Security or reactive web never
	 * loads it: the principal Spring Security keeps in the subscriber's context, else the
	 * address of the exchange it keeps there.
	 */
	private static final class ReactiveSecurity {

		static Mono<AiCaller> caller(String model) {
			return ReactiveCallers.principal()
				.map((name) -> of(name, null, model))
				.switchIfEmpty(Mono.deferContextual((context) -> {
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
