package dev.limiter.internal.web.servlet;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.limiter.internal.key.CurrentRequest;

/**
 * Finds the servlet request of the current thread, the request that a rate-limit
 * invocation exposes to key resolvers and to {@code #request} in key expressions.
 */
public final class ServletCurrentRequest implements CurrentRequest {

	@Override
	public Object get() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest() : null;
	}

}
