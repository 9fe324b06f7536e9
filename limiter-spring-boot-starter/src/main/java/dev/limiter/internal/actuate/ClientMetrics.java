package dev.limiter.internal.actuate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.limiter.internal.client.ClientListener;

/**
 * Counts what happens to the requests of {@code limiter.clients} in Micrometer, tagged
 * {@code client} (a name of the configuration, never a caller): {@value #WAITS} times the
 * waits for a turn, {@value #REFUSED} counts the requests not sent because no turn came
 * within their wait, and {@value #UPSTREAM_REJECTIONS} the 429s and 503s of the upstream,
 * tagged {@code status}.
 */
public final class ClientMetrics implements ClientListener {

	/** The timer of the waits for a turn. */
	public static final String WAITS = "limiter.client.waits";

	/** The counter of requests refused before they were sent. */
	public static final String REFUSED = "limiter.client.refused";

	/** The counter of the upstream's 429s and 503s. */
	public static final String UPSTREAM_REJECTIONS = "limiter.client.upstream.rejections";

	private final Map<String, Meters> meters = new HashMap<>();

	/**
	 * Register the meters of every client.
	 * @param registry the registry
	 * @param clients the clients' names
	 */
	public ClientMetrics(MeterRegistry registry, List<String> clients) {
		for (String client : clients) {
			this.meters.put(client, new Meters(
					Timer.builder(WAITS)
						.description("Time requests to a rate-limited upstream waited for their turn")
						.tag("client", client)
						.register(registry),
					Counter.builder(REFUSED)
						.description("Requests to a rate-limited upstream not sent: no turn within their wait")
						.tag("client", client)
						.register(registry),
					rejections(registry, client, 429), rejections(registry, client, 503)));
		}
	}

	private static Counter rejections(MeterRegistry registry, String client, int status) {
		return Counter.builder(UPSTREAM_REJECTIONS)
			.description("Requests a rate-limited upstream answered 429 or 503")
			.tag("client", client)
			.tag("status", Integer.toString(status))
			.register(registry);
	}

	@Override
	public void waited(String client, long nanos) {
		Meters meters = this.meters.get(client);
		if (meters != null) {
			meters.waits.record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void refused(String client) {
		Meters meters = this.meters.get(client);
		if (meters != null) {
			meters.refused.increment();
		}
	}

	@Override
	public void upstreamRejected(String client, int status) {
		Meters meters = this.meters.get(client);
		if (meters != null) {
			((status == 429) ? meters.tooMany : meters.unavailable).increment();
		}
	}

	private record Meters(Timer waits, Counter refused, Counter tooMany, Counter unavailable) {
	}

}
