package dev.limiter.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tokenizer.JTokkitTokenCountEstimator;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.limiter.ai.TokenBudgetAdvisor;
import dev.limiter.test.RedisServer;

/**
 * The cost of Limiter's token budget on a Spring AI {@code ChatClient} call, in one JVM
 * against a real Redis: the same call to a model that answers at once, without the
 * advisor, with it when the usage the model reports equals the reservation (settled
 * without a Redis call), and with it when the usage differs (one more script call to
 * settle). Runs alternate; process CPU and wall time per call, and Redis script calls per
 * call. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.AiAdvisorCost <out.json> [calls]}
 */
public final class AiAdvisorCost {

	private static final String PROMPT = "Say hello to the reader of this benchmark";

	private static final int MAX_TOKENS = 100;

	private AiAdvisorCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/ai-advisor.json");
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		Map<String, Object> report = new LinkedHashMap<>();
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
					.web(WebApplicationType.NONE)
					.properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
							"limiter.limits.ai-tokens.threshold=2000000000", "limiter.limits.ai-tokens.period=1d",
							"limiter.limits.ai-tokens.algorithm=sliding-buckets", "limiter.ai.limit=ai-tokens")
					.run()) {
			TokenBudgetAdvisor advisor = context.getBean(TokenBudgetAdvisor.class);
			long reservation = new JTokkitTokenCountEstimator().estimate(PROMPT) + MAX_TOKENS;
			ChatOptions.Builder options = ChatOptions.builder().model("stub").maxTokens(MAX_TOKENS);
			Map<String, ChatClient> clients = new LinkedHashMap<>();
			clients.put("without", ChatClient.builder(new Model(reservation)).defaultOptions(options).build());
			clients.put("usage=reservation",
					ChatClient.builder(new Model(reservation))
						.defaultOptions(options)
						.defaultAdvisors(advisor)
						.build());
			clients.put("usage<reservation",
					ChatClient.builder(new Model(42)).defaultOptions(options).defaultAdvisors(advisor).build());
			List<Object> rows = new ArrayList<>();
			for (int round = 0; round < 3; round++) {
				for (Map.Entry<String, ChatClient> client : clients.entrySet()) {
					rows.add(run(redis, client.getKey(), client.getValue(), (round == 0) ? calls / 4 : calls,
							round == 0));
				}
			}
			report.put("calls", calls);
			report.put("reservation", reservation);
			report.put("runs", rows);
		}
		ServerCost.write(out, report);
	}

	private static Map<String, Object> run(RedisServer redis, String name, ChatClient client, int calls,
			boolean warmUp) {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		long scripts = redis.scriptCalls();
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		for (int i = 0; i < calls; i++) {
			client.prompt().user(PROMPT).call().content();
		}
		double cpuMicros = (os.getProcessCpuTime() - cpu) / 1e3 / calls;
		double wallMicros = (System.nanoTime() - start) / 1e3 / calls;
		double scriptsPerCall = (redis.scriptCalls() - scripts) / (double) calls;
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("client", name);
		row.put("warmUp", warmUp);
		row.put("calls", calls);
		row.put("cpuMicrosPerCall", cpuMicros);
		row.put("wallMicrosPerCall", wallMicros);
		row.put("scriptCallsPerCall", scriptsPerCall);
		System.out.printf("%-18s %s calls %6d  CPU us/call %6.1f  wall us/call %6.1f  scripts/call %4.2f%n", name,
				warmUp ? "(warm-up)" : "         ", calls, cpuMicros, wallMicros, scriptsPerCall);
		return row;
	}

	/** A model that answers at once, reporting the usage it is given. */
	private record Model(long total) implements ChatModel {

		@Override
		public ChatResponse call(Prompt prompt) {
			int total = (int) this.total;
			return new ChatResponse(List.of(new Generation(new AssistantMessage("Hello there"))),
					ChatResponseMetadata.builder().model("stub").usage(new DefaultUsage(total - 2, 2, total)).build());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(classes = {
			org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
			dev.limiter.autoconfigure.LimiterAutoConfiguration.class, dev.limiter.ai.LimiterAiAutoConfiguration.class })
	static class Application {

	}

}
