package dev.limiter.internal.retry;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.resilience.retry.MethodRetryEvent;

/**
 * Ends a {@code @Retryable} call's retrying as soon as its budget denied a retry, with
 * the last attempt's exception: {@code @Retryable} publishes an event after each failed
 * attempt, before its back-off, and an exception its listeners throw leaves the call.
 * Without this the remaining attempts would still fail at once without a call, but only
 * after their back-offs. Listeners ordered after it do not hear that last event, and
 * {@code @Retryable} reports no exhaustion for such a call; with an asynchronous event
 * multicaster, or one with an error handler, the remaining back-offs are waited out.
 */
public final class RetryBudgetAbort implements ApplicationListener<MethodRetryEvent>, Ordered {

	// After the application's own listeners: they hear the event before the call ends.
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void onApplicationEvent(MethodRetryEvent event) {
		if (event.getSource() instanceof ProxyMethodInvocation call
				&& call.getUserAttribute(RetryBudgetAdvisor.DENIED) != null && event.getFailure() != null) {
			throw RetryBudgetAbort.<RuntimeException>sneaky(event.getFailure());
		}
	}

	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E sneaky(Throwable failure) throws E {
		throw (E) failure;
	}

}
