package dev.limiter.internal.call;

import org.junit.jupiter.api.Test;

import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimitResolvers;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.call.RateLimitOperation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scope of a rate-limited method names the class it is called on, and the parameter
 * types of overloads, so that no two methods share a quota by accident.
 */
class RateLimitScopeTests {

	private final RateLimitOperationSource source = new RateLimitOperationSource(
			new RateLimitAnnotationParser(LimitResolvers.of(new LimiterProperties()), null));

	@Test
	void aMethodInheritedByTwoClassesCountsApartForEach() throws Exception {
		RateLimitOperation orders = this.source.getOperation(Base.class.getMethod("list"), Orders.class);
		RateLimitOperation invoices = this.source.getOperation(Base.class.getMethod("list"), Invoices.class);
		assertThat(orders.getScope()).isEqualTo("m:" + Orders.class.getName() + ".list");
		assertThat(invoices.getScope()).isEqualTo("m:" + Invoices.class.getName() + ".list");
		assertThat(this.source.getOperations()).hasSize(2);
	}

	@Test
	void overloadsCountApart() throws Exception {
		RateLimitOperation one = this.source.getOperation(Overloaded.class.getMethod("send", String.class),
				Overloaded.class);
		RateLimitOperation two = this.source.getOperation(Overloaded.class.getMethod("send", String.class, int.class),
				Overloaded.class);
		assertThat(one.getScope()).isEqualTo("m:" + Overloaded.class.getName() + ".send(java.lang.String)");
		assertThat(two.getScope()).isEqualTo("m:" + Overloaded.class.getName() + ".send(java.lang.String,int)");
	}

	@Test
	void aMethodWithoutOverloadsKeepsTheShortScope() throws Exception {
		assertThat(this.source.getOperation(Orders.class.getMethod("list"), Orders.class).getScope())
			.isEqualTo("m:" + Orders.class.getName() + ".list");
	}

	static class Base {

		@RateLimit(threshold = 1)
		public String list() {
			return "listed";
		}

	}

	static class Orders extends Base {

	}

	static class Invoices extends Base {

	}

	static class Overloaded {

		@RateLimit(threshold = 1)
		public void send(String to) {
		}

		@RateLimit(threshold = 1)
		public void send(String to, int copies) {
		}

	}

}
