package dev.limiter.gateway;

import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Finds the plan of a request on a gateway route, such as from a header that an
 * authentication filter sets: the route's named limits then count under that plan's
 * numbers ({@code limiter.limits.<name>.plans.<plan>}). A route refers to one with
 * {@code limiter.plan-resolver: "#{@myPlanResolver}"}; a type of its own, so that it
 * never competes with the gateway's {@code KeyResolver} beans.
 */
@FunctionalInterface
public interface PlanResolver {

	/**
	 * Return the plan of a request.
	 * @param exchange the request
	 * @return the plan's name, or empty for the limits' own numbers
	 */
	Mono<String> resolve(ServerWebExchange exchange);

}
