package dev.limiter.ai;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The token budget that Spring AI's chat calls are charged against.
 */
@ConfigurationProperties("limiter.ai")
public class LimiterAiProperties {

	/**
	 * Named limit of limiter.limits that keeps each user's budget of tokens (its
	 * threshold in tokens per period or calendar); unset, ChatClient calls are not
	 * limited.
	 */
	private String limit;

	/**
	 * Whether each model has a budget of its own per user, instead of one budget for
	 * every model.
	 */
	private boolean perModel;

	/**
	 * Tokens reserved for the answer when the call's options set no maximum, beside the
	 * prompt's estimate.
	 */
	private int maxCompletionTokens = 1024;

	public String getLimit() {
		return this.limit;
	}

	public void setLimit(String limit) {
		this.limit = limit;
	}

	public boolean isPerModel() {
		return this.perModel;
	}

	public void setPerModel(boolean perModel) {
		this.perModel = perModel;
	}

	public int getMaxCompletionTokens() {
		return this.maxCompletionTokens;
	}

	public void setMaxCompletionTokens(int maxCompletionTokens) {
		this.maxCompletionTokens = maxCompletionTokens;
	}

}
