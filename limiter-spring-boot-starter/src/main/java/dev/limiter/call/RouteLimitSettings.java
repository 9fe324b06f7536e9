package dev.limiter.call;

import java.time.Duration;
import java.util.List;

/**
 * The limits of a gateway route, as both gateways bind them from the route's filter
 * arguments (each in its own spelling): a limit of the route's own, named after the
 * route, and the named limits it takes.
 */
public class RouteLimitSettings extends LimitSettings {

	/**
	 * Named limits under limiter.limits that the route also takes, separated by commas;
	 * each keeps its own settings.
	 */
	private List<String> name = List.of();

	/**
	 * Permits each request takes.
	 */
	private long permits = 1;

	/**
	 * How long a request whose turn comes within it waits for that turn instead of being
	 * rejected, such as 500ms; at most 60s.
	 */
	private Duration maxWait;

	public List<String> getName() {
		return this.name;
	}

	public void setName(List<String> name) {
		this.name = (name != null) ? name : List.of();
	}

	public long getPermits() {
		return this.permits;
	}

	public void setPermits(long permits) {
		this.permits = permits;
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

}
