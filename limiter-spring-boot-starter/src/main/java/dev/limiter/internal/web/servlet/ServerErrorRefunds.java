package dev.limiter.internal.web.servlet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitOperation;

/**
 * Gives back the permits of every call admitted during a request that ends in a server
 * error (a 5xx status, or an exception that leaves the application): a client is never
 * charged for the server's failure ({@code limiter.web.refund-server-errors}).
 */
public class ServerErrorRefunds extends OncePerRequestFilter implements RateLimitDecisionListener {

	private static final String DECISIONS = ServerErrorRefunds.class.getName() + ".decisions";

	private final RateLimiter rateLimiter;

	/**
	 * Create the refunds.
	 * @param rateLimiter the limiter that gave the permits
	 */
	public ServerErrorRefunds(RateLimiter rateLimiter) {
		this.rateLimiter = rateLimiter;
	}

	@Override
	public void onDecision(RateLimitOperation operation, Decision decision) {
		remember(decision);
	}

	@Override
	public void onShadowDecision(RateLimitOperation operation, Decision decision) {
		remember(decision);
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		boolean failed = true;
		try {
			chain.doFilter(request, response);
			failed = response.getStatus() >= 500;
		}
		finally {
			if (failed && request.getAttribute(DECISIONS) instanceof List<?> decisions) {
				for (Object decision : decisions) {
					this.rateLimiter.release((Decision) decision);
				}
			}
		}
	}

	@SuppressWarnings("unchecked")
	private void remember(Decision decision) {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (decision.isAllowed() && attributes != null) {
			Object decisions = attributes.getAttribute(DECISIONS, RequestAttributes.SCOPE_REQUEST);
			if (decisions == null) {
				decisions = new ArrayList<Decision>(2);
				attributes.setAttribute(DECISIONS, decisions, RequestAttributes.SCOPE_REQUEST);
			}
			((List<Decision>) decisions).add(decision);
		}
	}

}
