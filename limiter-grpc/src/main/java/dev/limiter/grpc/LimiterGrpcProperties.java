package dev.limiter.grpc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Limits of gRPC services and methods by their full names, without annotations.
 */
@ConfigurationProperties("limiter.grpc")
public class LimiterGrpcProperties {

	/**
	 * Named limits of limiter.limits that a gRPC method (package.Service/Method) or every
	 * method of a service (package.Service) takes, separated by commas; a method's own
	 * @RateLimit wins.
	 */
	private final Map<String, List<String>> limits = new LinkedHashMap<>();

	public Map<String, List<String>> getLimits() {
		return this.limits;
	}

}
