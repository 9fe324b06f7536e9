package dev.limiter.internal.web.servlet;

import java.io.IOException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.RuleCalls;
import dev.limiter.internal.call.SurfaceRequest;
import dev.limiter.internal.key.Callers;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * The rules by path ({@code limiter.web.rules}) on Spring MVC: a servlet filter after
 * Spring Security's, so that the principal is known, which decides every rule a request
 * matches before any handler, answers a refusal as a handler's is answered (status,
 * headers, problem body), and ends the admitted calls when the request ends. When a limit
 * decided later in the request refuses it (a handler's {@code @RateLimit}), the rules'
 * grants are given back: a call refused by any of its limits counts in none.
 */
public final class RuleFilter extends OncePerRequestFilter implements RateLimitDecisionListener, Ordered {

	/** After Spring Security's filter chain (-100) and Boot's request context (-105). */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final String REFUSED = RuleFilter.class.getName() + ".refused";

	private final Supplier<RuleCalls> rules;

	private volatile RuleCalls ruleCalls;

	private final RateLimitResponses responses;

	private final Supplier<List<HttpMessageConverter<?>>> converters;

	private final ServletRejections rejections = new ServletRejections();

	private volatile HttpMessageConverter<?> problemWriter;

	/**
	 * Create the filter.
	 * @param rules supplies the rules in force, on first use
	 * @param responses answers a refusal
	 * @param converters the application's message converters, for the problem body
	 */
	public RuleFilter(Supplier<RuleCalls> rules, RateLimitResponses responses,
			Supplier<List<HttpMessageConverter<?>>> converters) {
		this.rules = rules;
		this.responses = responses;
		this.converters = converters;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	private RuleCalls rules() {
		RuleCalls calls = this.ruleCalls;
		if (calls == null) {
			calls = this.rules.get();
			this.ruleCalls = calls;
		}
		return calls;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (rules().isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		List<RuleCalls.Rule> matching = rules().matching(request.getMethod(), path(request));
		if (matching.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		RuleRequest ruleRequest = new RuleRequest(request);
		List<CallHandle> admitted = new ArrayList<>(matching.size());
		for (RuleCalls.Rule rule : matching) {
			CallHandle call = rules().prepare(rule, ruleRequest);
			if (call == null) {
				continue;
			}
			boolean decided;
			try {
				decided = call.decide();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				admitted.forEach(CallHandle::giveBack);
				throw new ServletException("Interrupted while a rule's call waited for its turn", ex);
			}
			if (!decided) {
				admitted.forEach(CallHandle::giveBack);
				reject(call.rejection(), request, response);
				return;
			}
			admitted.add(call);
		}
		if (admitted.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		Throwable failure = null;
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			if (failure == null && request.isAsyncStarted()) {
				request.getAsyncContext().addListener(new Ends(admitted, request, response));
			}
			else {
				end(admitted, request, response, failure);
			}
		}
	}

	/**
	 * Mark the request when a limit that is not a rule's refuses a call of it, so that
	 * the rules' grants are given back when it ends.
	 */
	@Override
	public void onDecision(RateLimitInvocation invocation, Decision decision, long nanos) {
		if (decision.isAllowed() || !rules().givesBack(invocation.operation(), decision)) {
			return;
		}
		HttpServletRequest request = invocation.request(HttpServletRequest.class);
		if (request == null) {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			request = (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest() : null;
		}
		if (request != null) {
			request.setAttribute(REFUSED, Boolean.TRUE);
		}
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
	}

	private static void end(List<CallHandle> admitted, HttpServletRequest request, HttpServletResponse response,
			Throwable failure) {
		boolean refused = request.getAttribute(REFUSED) != null;
		for (CallHandle call : admitted) {
			if (refused) {
				call.giveBack();
			}
			else {
				call.end(failure, response.getStatus());
			}
		}
	}

	/** The path within the application as Spring MVC's handler mapping parses it. */
	private static PathContainer path(HttpServletRequest request) {
		Object previous = request.getAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE);
		try {
			return ServletRequestPathUtils.parseAndCache(request).pathWithinApplication();
		}
		finally {
			if (previous != null) {
				request.setAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE, previous);
			}
			else {
				ServletRequestPathUtils.clearParsedRequestPath(request);
			}
		}
	}

	private void reject(RateLimitExceededException rejection, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		ProblemDetail problem = this.responses.answer(rejection, request.getRequestURI(), response::setHeader);
		response.setStatus(problem.getStatus());
		HttpMessageConverter<?> converter = problemWriter();
		if (converter != null) {
			this.rejections.write(problem, MediaType.APPLICATION_PROBLEM_JSON, request, response, converter);
		}
	}

	private HttpMessageConverter<?> problemWriter() {
		HttpMessageConverter<?> writer = this.problemWriter;
		if (writer == null) {
			for (HttpMessageConverter<?> converter : this.converters.get()) {
				if (ServletRejections.writesProblems(converter)) {
					this.problemWriter = converter;
					return converter;
				}
			}
		}
		return writer;
	}

	/** Ends the admitted calls of a request that went on asynchronously, when it ends. */
	private static final class Ends implements AsyncListener {

		private final List<CallHandle> admitted;

		private final HttpServletRequest request;

		private final HttpServletResponse response;

		Ends(List<CallHandle> admitted, HttpServletRequest request, HttpServletResponse response) {
			this.admitted = admitted;
			this.request = request;
			this.response = response;
		}

		@Override
		public void onComplete(AsyncEvent event) {
			end(this.admitted, this.request, this.response, null);
		}

		@Override
		public void onTimeout(AsyncEvent event) {
		}

		@Override
		public void onError(AsyncEvent event) {
			end(this.admitted, this.request, this.response, event.getThrowable());
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			event.getAsyncContext().addListener(this);
		}

	}

	/**
	 * The request as a rule's key and condition see it: the servlet request itself
	 * ({@code #request}, and what listeners write to), its headers as {@code #headers},
	 * and its caller by the one rule (the principal, else the client's address).
	 */
	static final class RuleRequest extends HttpServletRequestWrapper implements SurfaceRequest {

		private HttpHeaders headers;

		RuleRequest(HttpServletRequest request) {
			super(request);
		}

		@Override
		public String caller() {
			Principal principal = getUserPrincipal();
			return Callers.caller((principal != null) ? principal.getName() : null, getRemoteAddr());
		}

		@Override
		public Object variable(String name) {
			if (!"headers".equals(name)) {
				return null;
			}
			if (this.headers == null) {
				this.headers = new ServletServerHttpRequest((HttpServletRequest) getRequest()).getHeaders();
			}
			return this.headers;
		}

	}

}
