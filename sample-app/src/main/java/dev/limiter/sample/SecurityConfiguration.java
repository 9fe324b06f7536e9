package dev.limiter.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Two demo users, alice and bob, and an operator, admin (password {@code password}), over
 * HTTP Basic. Every endpoint is open but Actuator's write operations, which only admin
 * may call (a reset of a quota, an override); a request with credentials is keyed by its
 * user, one without by its client address.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.DELETE, "/actuator/**")
			.hasRole("ADMIN")
			.requestMatchers(HttpMethod.POST, "/actuator/**")
			.hasRole("ADMIN")
			.anyRequest()
			.permitAll()).httpBasic(Customizer.withDefaults()).csrf((csrf) -> csrf.disable());
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
