package dev.limiter.internal.call;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.context.support.StaticMessageSource;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.test.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RateLimitAspect} on services, outside the web layer, with the
 * in-memory engine on a clock the tests move.
 */
class RateLimitAspectTests {

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
		.withUserConfiguration(ServiceConfiguration.class);

	@Test
	void serviceMethodThrowsOnceOverTheLimit() {
		this.contextRunner.run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			assertThat(mailer.send("a")).isEqualTo("sent a");
			assertThat(mailer.send("b")).isEqualTo("sent b");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> mailer.send("c"))
				.satisfies((ex) -> {
					assertThat(ex.getDecision().limit().threshold()).isEqualTo(2);
					assertThat(ex.getDecision().retryAfterSeconds()).isEqualTo(30);
					assertThat(ex.getKey()).isEqualTo("m:" + Mailer.class.getName() + ".send:all");
					assertThat(ex).hasMessage("Rate limit 'default' (2 per 30s) exceeded, retry after 30s");
				});
			assertThat(mailer.sent()).isEqualTo(2);
		});
	}

	@Test
	void windowSlidesWithTheClock() {
		this.contextRunner.run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			MutableClock clock = context.getBean(MutableClock.class);
			mailer.send("a");
			clock.advance(Duration.ofSeconds(13));
			mailer.send("b");
			RateLimitExceededException ex = catchRejection(() -> mailer.send("c"));
			assertThat(ex.getDecision().retryAfterSeconds()).isEqualTo(17);
			clock.advance(Duration.ofSeconds(17));
			assertThat(mailer.send("c")).isEqualTo("sent c");
		});
	}

	@Test
	void spelKeyGivesEachValueItsOwnQuota() {
		this.contextRunner.run((context) -> {
			Accounts accounts = context.getBean(Accounts.class);
			accounts.login("alice", "x");
			assertThat(catchRejection(() -> accounts.login("alice", "y")).getKey())
				.isEqualTo("m:" + Accounts.class.getName() + ".login:alice");
			assertThat(accounts.login("bob", "x")).isTrue();
		});
	}

	@Test
	void spelKeyHashesLongValues() {
		this.contextRunner.run((context) -> {
			Accounts accounts = context.getBean(Accounts.class);
			String longName = "x".repeat(10_000);
			accounts.login(longName, "x");
			String key = catchRejection(() -> accounts.login(longName, "x")).getKey();
			assertThat(key).startsWith("m:" + Accounts.class.getName() + ".login:#").hasSizeLessThan(200);
		});
	}

	@Test
	void spelKeyReadsBeansAndAliases() {
		this.contextRunner.run((context) -> {
			Accounts accounts = context.getBean(Accounts.class);
			accounts.reset("alice");
			assertThat(catchRejection(() -> accounts.reset("alice")).getKey()).endsWith(":tenant-1/alice");
		});
	}

	@Test
	void twoLimitsAreCheckedTogether() {
		this.contextRunner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			MutableClock clock = context.getBean(MutableClock.class);
			for (int i = 0; i < 3; i++) {
				reports.build();
				clock.advance(Duration.ofSeconds(1));
			}
			// 3 per second is fine; the 4th in one hour breaks the second limit.
			RateLimitExceededException ex = catchRejection(reports::build);
			assertThat(ex.getDecision().limit().name()).isEqualTo("hourly");
			assertThat(ex.getDecision().limit().period()).isEqualTo(Duration.ofHours(1));
			// Nothing was consumed under the first limit by the rejected call.
			assertThat(reports.built()).isEqualTo(3);
		});
	}

	@Test
	void classLevelLimitAppliesToEveryPublicMethodWithItsOwnQuota() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			exports.csv();
			catchRejection(exports::csv);
			exports.pdf();
			RateLimitExceededException ex = catchRejection(exports::pdf);
			// The method's own limit and the class's are checked together; the class's
			// frees up last.
			assertThat(ex.getDecision().limit().period()).isEqualTo(Duration.ofSeconds(60));
		});
	}

	@Test
	void messageComesFromTheAnnotation() {
		this.contextRunner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			reports.build();
			reports.build();
			reports.build();
			assertThat(catchRejection(reports::build)).hasMessage("Too many reports this hour, retry in 3600s");
		});
	}

	@Test
	void messageCodeIsResolvedForTheCurrentLocale() {
		this.contextRunner.withUserConfiguration(MessagesConfiguration.class).run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			Accounts accounts = context.getBean(Accounts.class);
			mailer.send("a");
			mailer.send("b");
			accounts.login("alice", "x");
			LocaleContextHolder.setLocale(Locale.GERMAN);
			try {
				assertThat(catchRejection(() -> mailer.send("c")))
					.hasMessage("Zu viele Aufrufe (2 in 30s), 30s warten");
				assertThat(catchRejection(() -> accounts.login("alice", "x")))
					.hasMessage("Zu viele Anmeldungen für default");
			}
			finally {
				LocaleContextHolder.resetLocaleContext();
			}
		});
	}

	@Test
	void methodsWithoutLimitsAreNotTouched() {
		this.contextRunner.run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			for (int i = 0; i < 10; i++) {
				assertThat(mailer.unlimited()).isTrue();
			}
		});
	}

	private static RateLimitExceededException catchRejection(Runnable call) {
		try {
			call.run();
		}
		catch (RateLimitExceededException ex) {
			return ex;
		}
		throw new AssertionError("Expected the call to be rejected");
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		MutableClock clock() {
			return new MutableClock(START);
		}

		@Bean
		RateLimiter rateLimiter(MutableClock clock) {
			return new InMemoryRateLimiter(clock, false);
		}

		@Bean
		Mailer mailer() {
			return new Mailer();
		}

		@Bean
		Accounts accounts() {
			return new Accounts();
		}

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		Exports exports() {
			return new Exports();
		}

		@Bean
		Tenant tenant() {
			return new Tenant();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MessagesConfiguration {

		@Bean
		MessageSource messageSource() {
			StaticMessageSource messages = new StaticMessageSource();
			messages.addMessage("limiter.rejected", Locale.GERMAN, "Zu viele Aufrufe ({1} in {2}), {3}s warten");
			messages.addMessage("accounts.too-many", Locale.GERMAN, "Zu viele Anmeldungen für {0}");
			return messages;
		}

	}

	static class Mailer {

		private int sent;

		public int sent() {
			return this.sent;
		}

		@RateLimit(period = 30, threshold = 2)
		public String send(String to) {
			this.sent++;
			return "sent " + to;
		}

		public boolean unlimited() {
			return true;
		}

	}

	static class Accounts {

		@RateLimit(threshold = 1, key = "#user", message = "{accounts.too-many}")
		public boolean login(String user, String password) {
			return true;
		}

		@RateLimit(threshold = 1, period = 1, unit = TimeUnit.HOURS, key = "@tenant.id + '/' + #p0")
		public void reset(String user) {
		}

	}

	static class Tenant {

		public String getId() {
			return "tenant-1";
		}

	}

	static class Reports {

		private int built;

		public int built() {
			return this.built;
		}

		@RateLimit(period = 1, threshold = 3)
		@RateLimit(name = "hourly", period = 1, unit = TimeUnit.HOURS, threshold = 3,
				message = "Too many reports this hour, retry in {3}s")
		public void build() {
			this.built++;
		}

	}

	@RateLimit(threshold = 1)
	static class Exports {

		public void csv() {
		}

		@RateLimit(threshold = 1, period = 10)
		public void pdf() {
		}

	}

}
