package dev.limiter.internal.retry;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.context.ApplicationListener;
import org.springframework.resilience.retry.MethodRetryEvent;

/**
 * Ends a {@code @Retryable} call's retrying as soon as its budget denied a retry, with
 * the last attempt's exception: {@code @Retryable} publishes an event after each failed
 * attempt, before its back-off, and an exception its listeners throw leaves the call.
 * Without this the remaining attempts would still fail at once without a call, but only
 * after their back-offs.
 */
public final class RetryBudgetAbort implements ApplicationListener<MethodRetryEvent> {

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
