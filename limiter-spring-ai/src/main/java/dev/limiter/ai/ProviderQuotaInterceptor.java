package dev.limiter.ai;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import org.springframework.ai.tokenizer.TokenCountEstimator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.limiter.Decision;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Keeps the requests of Spring AI's OpenAI client within the provider's quotas of
 * {@code limiter.clients}, counted by every instance together: a request to one of a
 * client's hosts waits for its turn, as {@code RestClient}'s requests do, and where the
 * client counts {@code tokens}, first reserves the tokens it may use (its prompt, counted
 * with the tokenizer, and its answer's bound) and is charged the usage its answer reports
 * (a stream's last chunk; a stream cut short, its prompt and the text it streamed). What
 * the provider says of its quotas ({@code Retry-After}, {@code x-ratelimit-remaining-*})
 * holds every instance.
 */
final class ProviderQuotaInterceptor implements Interceptor {

	/**
	 * A request or an answer longer than this is not read for its tokens: a request's
	 * estimate is then its answer's bound, an answer keeps its reservation.
	 */
	private static final long LONGEST_BODY = 16 * 1024 * 1024;

	private static final JsonMapper json = JsonMapper.builder().build();

	private final OutgoingQuotas quotas;

	private final TokenCountEstimator tokenizer;

	private final int maxCompletionTokens;

	ProviderQuotaInterceptor(OutgoingQuotas quotas, TokenCountEstimator tokenizer, int maxCompletionTokens) {
		this.quotas = quotas;
		this.tokenizer = tokenizer;
		this.maxCompletionTokens = maxCompletionTokens;
	}

	@Override
	public Response intercept(Chain chain) throws IOException {
		Request request = chain.request();
		OutgoingQuota quota = this.quotas.forHost(request.url().host());
		if (quota == null) {
			return chain.proceed(request);
		}
		Estimate estimate = (quota.tokens() != null) ? estimate(request) : null;
		Decision tokens = (estimate != null) ? this.quotas.awaitTokens(quota, estimate.total()) : null;
		Decision turn;
		try {
			turn = this.quotas.awaitTurn(quota);
		}
		catch (RuntimeException ex) {
			settle(tokens, estimate, 0);
			throw ex;
		}
		Response response;
		try {
			response = chain.proceed(request);
		}
		catch (IOException | RuntimeException ex) {
			// no answer, no usage known: the provider bills none without one
			settle(tokens, estimate, 0);
			throw ex;
		}
		finally {
			this.quotas.done(turn);
		}
		this.quotas.learn(quota, response.code(), response::header, (estimate != null) ? estimate.total() : 1);
		if (tokens == null) {
			return response;
		}
		if (!response.isSuccessful() || response.body() == null) {
			settle(tokens, estimate, 0);
			return response;
		}
		MediaType type = response.body().contentType();
		if (type != null && "event-stream".equals(type.subtype())) {
			ResponseBody body = response.body();
			Settling settling = new Settling(body.source(), tokens, estimate);
			return response.newBuilder()
				.body(ResponseBody.create(Okio.buffer(settling), type, body.contentLength()))
				.build();
		}
		long used = usage(response.peekBody(LONGEST_BODY).string());
		settle(tokens, estimate, (used >= 0) ? used : estimate.total());
		return response;
	}

	private void settle(Decision tokens, Estimate estimate, long used) {
		if (tokens != null) {
			this.quotas.settleTokens(tokens, estimate.total(), used);
		}
	}

	/**
	 * Estimate a chat request's tokens: its messages' text, counted with the tokenizer,
	 * and the bound of its answer (its own maximum, else
	 * {@code limiter.ai.max-completion-tokens}).
	 */
	Estimate estimate(Request request) throws IOException {
		okhttp3.RequestBody requestBody = request.body();
		MediaType type = (requestBody != null) ? requestBody.contentType() : null;
		// only a chat request's JSON is read: never a one-shot body (it would be spent),
		// an upload (audio, images) or one too long to hold
		if (requestBody == null || requestBody.isOneShot() || type == null || !"json".equals(type.subtype())
				|| requestBody.contentLength() > LONGEST_BODY) {
			return new Estimate(0, this.maxCompletionTokens);
		}
		Buffer buffer = new Buffer();
		request.body().writeTo(buffer);
		JsonNode body;
		try {
			body = json.readTree(buffer.readString(StandardCharsets.UTF_8));
		}
		catch (RuntimeException ex) {
			return new Estimate(0, this.maxCompletionTokens);
		}
		StringBuilder text = new StringBuilder();
		for (JsonNode message : body.path("messages")) {
			JsonNode content = message.path("content");
			if (content.isString()) {
				text.append(content.asString()).append('\n');
			}
			for (JsonNode part : content) {
				text.append(part.path("text").asString("")).append('\n');
			}
		}
		long answer = body.path("max_completion_tokens").asLong(body.path("max_tokens").asLong(0));
		return new Estimate(this.tokenizer.estimate(text.toString()), (answer > 0) ? answer : this.maxCompletionTokens);
	}

	/** The {@code usage.total_tokens} of an answer or of a stream's chunk, else -1. */
	private static long usage(String answer) {
		try {
			JsonNode total = json.readTree(answer).path("usage").path("total_tokens");
			return total.isNumber() ? Math.max(0, total.asLong()) : -1;
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * The tokens a request may use.
	 *
	 * @param prompt its messages' tokens
	 * @param answer the bound of its answer's tokens
	 */
	record Estimate(long prompt, long answer) {

		long total() {
			return this.prompt + this.answer;
		}

	}

	/**
	 * A streamed answer read as it passes to the client, settled once when it ends,
	 * whether read to its end or closed before: with the usage of its last chunk, else
	 * the prompt's estimate and the tokens of the text it streamed.
	 */
	private final class Settling extends ForwardingSource {

		private final Decision tokens;

		private final Estimate estimate;

		private final Buffer line = new Buffer();

		private final StringBuilder streamed = new StringBuilder();

		private final AtomicBoolean settled = new AtomicBoolean();

		private long usage = -1;

		Settling(BufferedSource source, Decision tokens, Estimate estimate) {
			super(source);
			this.tokens = tokens;
			this.estimate = estimate;
		}

		@Override
		public long read(Buffer sink, long byteCount) throws IOException {
			long read;
			try {
				read = super.read(sink, byteCount);
			}
			catch (IOException | RuntimeException ex) {
				end();
				throw ex;
			}
			if (read < 0) {
				end();
				return read;
			}
			sink.copyTo(this.line, sink.size() - read, read);
			long newline;
			while ((newline = this.line.indexOf((byte) '\n')) >= 0) {
				chunk(this.line.readUtf8(newline + 1).trim());
			}
			return read;
		}

		@Override
		public void close() throws IOException {
			end();
			super.close();
		}

		private void chunk(String line) {
			if (!line.startsWith("data:") || line.endsWith("[DONE]")) {
				return;
			}
			try {
				JsonNode chunk = json.readTree(line.substring(5));
				JsonNode total = chunk.path("usage").path("total_tokens");
				if (total.isNumber()) {
					this.usage = total.asLong();
				}
				for (JsonNode choice : chunk.path("choices")) {
					this.streamed.append(choice.path("delta").path("content").asString(""));
				}
			}
			catch (RuntimeException ex) {
				// a chunk that is not JSON says nothing of the usage
			}
		}

		private void end() {
			if (this.settled.compareAndSet(false, true)) {
				long used = (this.usage >= 0) ? this.usage : this.estimate.prompt()
						+ ProviderQuotaInterceptor.this.tokenizer.estimate(this.streamed.toString());
				settle(this.tokens, this.estimate, used);
			}
		}

	}

}
