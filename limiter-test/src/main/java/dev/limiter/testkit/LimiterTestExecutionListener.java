package dev.limiter.testkit;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Gives every caller its full quota again before each test method of a context that has a
 * {@link TestLimiter}, so that tests sharing a cached context do not see each other's
 * calls.
 */
public class LimiterTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		// After the listeners that prepare the context and inject the test instance.
		return 5_000;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (!testContext.hasApplicationContext()) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		context.getBeanProvider(TestLimiter.class).ifAvailable(TestLimiter::reset);
	}

}
