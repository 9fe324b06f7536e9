package dev.limiter.graphql;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The budget of points that GraphQL operations are charged against, and how their cost is
 * computed.
 */
@ConfigurationProperties("limiter.graphql")
public class LimiterGraphQlProperties {

	/**
	 * Named limit of limiter.limits that keeps each caller's budget of points (its
	 * threshold in points per period or calendar); unset, GraphQL operations are not
	 * limited by cost.
	 */
	private String limit;

	/**
	 * Key expression that tells callers apart instead of the principal (else the client's
	 * address), over the request's HTTP headers as #headers and beans as @name, such as
	 * "#headers.getFirst('X-Api-Key')".
	 */
	private String key;

	/**
	 * Items a field that returns a list is assumed to return when neither a slicing
	 * argument nor @listSize gives its size.
	 */
	private long assumedListSize = 10;

	/**
	 * Arguments that give how many items a list or a connection returns, read where a
	 * field declares them and @listSize does not name others.
	 */
	private List<String> slicingArguments = new ArrayList<>(List.of("first", "last", "limit"));

	/**
	 * Whether an operation's cost is settled after it ran, from the lists it really
	 * returned: points of shorter lists given back, of longer ones taken.
	 */
	private boolean settle;

	public String getLimit() {
		return this.limit;
	}

	public void setLimit(String limit) {
		this.limit = limit;
	}

	public String getKey() {
		return this.key;
	}

	public void setKey(String key) {
		this.key = key;
	}

	public long getAssumedListSize() {
		return this.assumedListSize;
	}

	public void setAssumedListSize(long assumedListSize) {
		this.assumedListSize = assumedListSize;
	}

	public List<String> getSlicingArguments() {
		return this.slicingArguments;
	}

	public void setSlicingArguments(List<String> slicingArguments) {
		this.slicingArguments = slicingArguments;
	}

	public boolean isSettle() {
		return this.settle;
	}

	public void setSettle(boolean settle) {
		this.settle = settle;
	}

}
