package dev.limiter.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.test.context.TestPropertySource;

/**
 * Swaps Limiter's store for an in-memory one on a {@link TestLimiter} clock in a Spring
 * test context, so that limits are tested without Redis and without sleeping; every limit
 * starts full again before each test method.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;LimiterTest
 * class GreetingLimitTests {
 *     &#64;Autowired TestLimiter limiter;
 *     // call the endpoint N times, expect a 429, limiter.advance(period), expect a 200
 * }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(LimiterTestAutoConfiguration.class)
// The in-memory store, so that nothing of the test's context talks to the Redis the
// application is configured for: not the counts, not the overrides, not the holds.
@TestPropertySource(properties = "limiter.store=memory")
public @interface LimiterTest {

}
