package dev.limiter.ai;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.tokenizer.TokenCountEstimator;
import org.springframework.core.Ordered;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.SurfaceCalls;

/**
 * Keeps a budget of tokens per user for the calls of Spring AI's {@code ChatClient},
 * through Limiter's decision pipeline: before the model is called, the prompt's tokens
 * (estimated with a tokenizer) and the answer's bound (the call's maximum tokens) are
 * reserved under the budget's limit ({@code limiter.ai.limit}), and a call the budget
 * cannot hold is refused with {@code RateLimitExceededException} without reaching the
 * model; after the call, the usage the model reports is settled (a stream's with its last
 * chunk, or estimated from the text streamed when it is cut).
 * <p>
 * Every {@code ChatClient} built from Boot's {@code ChatClient.Builder} has it; others
 * add this bean with {@code defaultAdvisors(advisor)}. It runs outside Spring AI's tool
 * loop: one reservation per call, settled with the usage of all its rounds.
 */
public final class TokenBudgetAdvisor implements CallAdvisor, StreamAdvisor {

	/**
	 * The key, in a call's advisor context, of the user whose budget it spends, for calls
	 * whose user is neither the thread's nor the stream subscriber's principal:
	 * {@code .advisors((advisor) -> advisor.param(TokenBudgetAdvisor.CALLER, userId))}.
	 */
	public static final String CALLER = "limiter.caller";

	/** Before Spring AI's tool calling advisor, so that a call with tools is one call. */
	static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	private final SurfaceCalls calls;

	private final LimiterAiProperties properties;

	private final TokenCountEstimator tokens;

	private final AiTokens counted;

	private volatile AnnotatedOperation operation;

	TokenBudgetAdvisor(SurfaceCalls calls, LimiterAiProperties properties, TokenCountEstimator tokens,
			AiTokens counted) {
		this.calls = calls;
		this.properties = properties;
		this.tokens = tokens;
		this.counted = counted;
	}

	/**
	 * Register the budget; once, when the application has started its beans.
	 * @throws IllegalArgumentException naming what to fix
	 */
	void start() {
		if (this.properties.getMaxCompletionTokens() < 1) {
			throw new IllegalArgumentException("limiter.ai.max-completion-tokens is "
					+ this.properties.getMaxCompletionTokens()
					+ ", not a number of tokens: set it to the tokens reserved for an answer whose call sets no "
					+ "maximum, such as 1024");
		}
		// every call is settled with the usage the model reports
		this.operation = this.calls.register("spring-ai", List.of(this.properties.getLimit()), null, "limiter.ai.limit",
				"limiter.ai.limit, whose calls are settled with the tokens they used,");
	}

	@Override
	public String getName() {
		return "limiter-token-budget";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		Reservation reservation = prepare(request, AiCaller.current(named(request), model(request)));
		if (reservation == null) {
			return chain.nextCall(request);
		}
		boolean admitted;
		try {
			admitted = reservation.call().decide();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a turn under the token budget", ex);
		}
		if (!admitted) {
			throw refused(reservation);
		}
		this.counted.count(reservation.limit(), reservation.model(), "reserved", reservation.tokens());
		ChatClientResponse response;
		try {
			response = chain.nextCall(request);
		}
		catch (RuntimeException ex) {
			// no answer: nothing was generated, the reservation is given back
			settle(reservation, 0, ex);
			throw ex;
		}
		long used = usage(response.chatResponse());
		settle(reservation, (used > 0) ? used : reservation.tokens(), null);
		return response;
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		// the caller as the subscription finds it, on the subscribing thread
		return Mono.defer(() -> AiCaller.subscriber(named(request), model(request))).flatMapMany((caller) -> {
			Reservation reservation = prepare(request, caller);
			if (reservation == null) {
				return chain.nextStream(request);
			}
			return Mono.fromFuture(() -> reservation.call().decideAsync((duration) -> Mono.delay(duration).toFuture()))
				.publishOn(Schedulers.parallel())
				.flatMapMany((admitted) -> {
					if (!admitted) {
						return Flux.error(refused(reservation));
					}
					this.counted.count(reservation.limit(), reservation.model(), "reserved", reservation.tokens());
					Streamed streamed = new Streamed();
					return chain.nextStream(request)
						.doOnNext(streamed::observe)
						.doFinally((signal) -> settleStream(reservation, streamed));
				});
		});
	}

	private static Object named(ChatClientRequest request) {
		return request.context().get(CALLER);
	}

	/** The model, where budgets are per model. */
	private String model(ChatClientRequest request) {
		ChatOptions options = request.prompt().getOptions();
		return (this.properties.isPerModel() && options != null) ? options.getModel() : null;
	}

	/**
	 * Prepare the call's reservation, or {@code null} when the budget leaves it
	 * unlimited.
	 */
	private Reservation prepare(ChatClientRequest request, AiCaller caller) {
		AnnotatedOperation operation = this.operation;
		if (operation == null) {
			return null;
		}
		ChatOptions options = request.prompt().getOptions();
		String model = (options != null) ? options.getModel() : null;
		long prompt = 0;
		for (Message message : request.prompt().getInstructions()) {
			prompt += this.tokens.estimate(message.getText());
		}
		Integer maxTokens = (options != null) ? options.getMaxTokens() : null;
		long completion = (maxTokens != null && maxTokens > 0) ? maxTokens : this.properties.getMaxCompletionTokens();
		CallHandle call = this.calls.prepare(operation, null, new Object[0], caller);
		if (call == null) {
			return null;
		}
		long reserved = prompt + completion;
		call.costing(reserved, "tokens",
				"lower the call's maximum tokens, or limiter.ai.max-completion-tokens for " + "calls that set none ("
						+ prompt + " tokens estimated for the prompt, " + completion + " reserved for the answer)");
		return new Reservation(call, reserved, prompt, this.properties.getLimit(), model);
	}

	private RuntimeException refused(Reservation reservation) {
		this.counted.count(reservation.limit(), reservation.model(), "refused", reservation.tokens());
		return reservation.call().rejection();
	}

	private void settle(Reservation reservation, long used, Throwable failure) {
		this.counted.count(reservation.limit(), reservation.model(), "settled", used);
		reservation.call().settle(used);
		reservation.call().end(failure);
	}

	/**
	 * Settle a stream that ended, however it ended: the usage of its last chunk where the
	 * provider sent one, else the prompt's estimate and the text streamed so far.
	 */
	private void settleStream(Reservation reservation, Streamed streamed) {
		long reported = streamed.usage.get();
		long used = (reported > 0) ? reported : reservation.prompt() + this.tokens.estimate(streamed.text.toString());
		this.counted.count(reservation.limit(), reservation.model(), "settled", used);
		reservation.call().settleAsync(used);
		reservation.call().endAsync(null);
	}

	/** The total tokens a response reports, 0 when it reports none. */
	static long usage(ChatResponse response) {
		if (response == null || response.getMetadata() == null) {
			return 0;
		}
		Usage usage = response.getMetadata().getUsage();
		Integer total = (usage != null) ? usage.getTotalTokens() : null;
		return (total != null) ? total : 0;
	}

	/** A reserved call: its tokens, the prompt's share, its limit and model. */
	private record Reservation(CallHandle call, long tokens, long prompt, String limit, String model) {
	}

	/** What a stream has sent so far: its text, and the usage its last chunk reported. */
	private static final class Streamed {

		private final StringBuilder text = new StringBuilder();

		private final AtomicLong usage = new AtomicLong();

		synchronized void observe(ChatClientResponse chunk) {
			ChatResponse response = chunk.chatResponse();
			if (response == null) {
				return;
			}
			long reported = usage(response);
			if (reported > 0) {
				// each chunk reports 0 but the last, which reports the whole call
				this.usage.set(reported);
			}
			for (Generation generation : response.getResults()) {
				if (generation.getOutput() != null && generation.getOutput().getText() != null) {
					this.text.append(generation.getOutput().getText());
				}
			}
		}

	}

}
