package dev.limiter.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Two demo users, alice and bob, and an operator, admin (password {@code password}), over
 * HTTP Basic. Every endpoint of the application is open; Actuator's are admin's but
 * health: the {@code ratelimits} endpoint's reads name people (a caller's usage, the
 * callers rejected most) and its writes lift limits. A request with credentials is keyed
 * by its user, one without by its client address. This is the configuration
 * docs/operations.md shows, and {@code RateLimitsEndpointTests} runs its curl session.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests.requestMatchers("/actuator/health", "/actuator/health/**")
			.permitAll()
			.requestMatchers("/actuator/**")
			.hasRole("ADMIN")
			.anyRequest()
			.permitAll())
			.httpBasic(Customizer.withDefaults())
			// Operators send Actuator's writes with a tool and HTTP Basic, and clients
			// call
			// the API's POST /login without a session, not from a browser form: no CSRF
			// token there (with one required, the admin's own DELETE and every login were
			// a 403). A browser's form login keeps CSRF and sends the form's token.
			.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/**", "/login"));
		return http.build();
	}

	@Bean
	UserDetailsService users() {
		return new InMemoryUserDetailsManager(
				User.withUsername("alice").password("{noop}password").roles("USER").build(),
				User.withUsername("bob").password("{noop}password").roles("USER").build(),
				User.withUsername("admin").password("{noop}password").roles("ADMIN").build());
	}

}
