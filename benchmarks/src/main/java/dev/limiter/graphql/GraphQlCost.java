package dev.limiter.graphql;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import graphql.language.Document;
import graphql.parser.Parser;
import graphql.parser.ParserEnvironment;
import graphql.parser.ParserOptions;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.graphql.ExecutionGraphQlService;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.execution.GraphQlSource;
import org.springframework.graphql.server.WebGraphQlHandler;
import org.springframework.graphql.server.WebGraphQlInterceptor;
import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Controller;

import dev.limiter.test.RedisServer;

/**
 * The cost of GraphQL budgets, in one JVM, Redis in its own process. First, the time to
 * cost a document against its size (aliases of a connection, 10 to 10,000), beside the
 * time graphql-java takes to parse it. Then the CPU of one operation through Spring for
 * GraphQL's handler (interceptors and execution, without HTTP): a trivial query without
 * Limiter, the same admitted by a budget in Redis, and refused by a spent one. Writes one
 * JSON file. In this package for the cost calculator, which is internal.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.graphql.GraphQlCost <out.json> [operations]}
 */
public final class GraphQlCost {

	private static final String TRIVIAL = "{ book(id: 1) { title } }";

	private GraphQlCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/graphql.json");
		int operations = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("costBySize", costBySize());
		try (RedisServer redis = RedisServer.start()) {
			List<Object> rows = new ArrayList<>();
			Map<String, WebGraphQlHandler> handlers = new LinkedHashMap<>();
			List<ConfigurableApplicationContext> contexts = new ArrayList<>();
			try {
				handlers.put("free", handler(contexts, redis));
				handlers.put("admitted",
						handler(contexts, redis, "limiter.limits.points.threshold=2000000000",
								"limiter.limits.points.period=1h", "limiter.limits.points.algorithm=token-bucket",
								"limiter.graphql.limit=points"));
				handlers.put("refused", handler(contexts, redis, "limiter.limits.points.threshold=1",
						"limiter.limits.points.period=1h", "limiter.graphql.limit=points"));
				for (int round = 0; round < 3; round++) {
					for (Map.Entry<String, WebGraphQlHandler> handler : handlers.entrySet()) {
						rows.add(run(handler.getKey(), handler.getValue(), TRIVIAL,
								(round == 0) ? operations / 4 : operations, round == 0));
					}
				}
				// A document of 100 KB, most of it in arguments (graphql-java's parser
				// refuses an operation of more than 15,000 tokens): the CPU Limiter adds
				// beyond a trivial operation's, against graphql-java's parse of it.
				String large = largeDocument();
				for (int round = 0; round < 3; round++) {
					for (String name : List.of("free", "admitted")) {
						rows.add(run(name + " 100 KB", handlers.get(name), large,
								(round == 0) ? operations / 40 : operations / 10, round == 0));
					}
				}
				long parseStart = System.nanoTime();
				int parses = operations / 10;
				for (int i = 0; i < parses; i++) {
					Parser.parse(ParserEnvironment.newParserEnvironment()
						.document(large)
						.parserOptions(ParserOptions.getDefaultOperationParserOptions())
						.build());
				}
				double parseMicros = (System.nanoTime() - parseStart) / 1e3 / parses;
				// what the interceptor does with the document besides: its cost
				QueryCosts costs = new QueryCosts(schema(), null, 10, List.of("first", "last", "limit"));
				Document parsed = parse(large);
				long costStart = System.nanoTime();
				for (int i = 0; i < parses; i++) {
					costs.estimate(parsed, QueryCosts.operation(parsed, null), Map.of());
				}
				double costMicros = (System.nanoTime() - costStart) / 1e3 / parses;
				report.put("largeDocumentKilobytes", large.getBytes(StandardCharsets.UTF_8).length / 1024);
				report.put("largeDocumentParseMicros", parseMicros);
				report.put("largeDocumentCostMicros", costMicros);
				System.out.printf(
						"the 100 KB document: graphql-java parses it in %.1f us, Limiter costs it in %.1f us%n",
						parseMicros, costMicros);
			}
			finally {
				contexts.forEach(ConfigurableApplicationContext::close);
			}
			report.put("operations", operations);
			report.put("runs", rows);
		}
		dev.limiter.benchmarks.ServerCost.write(out, report);
	}

	/** Cost and parse times of documents of growing size, per kilobyte. */
	private static List<Object> costBySize() {
		QueryCosts costs = new QueryCosts(schema(), null, 10, List.of("first", "last", "limit"));
		List<Object> rows = new ArrayList<>();
		for (int aliases : new int[] { 10, 100, 1_000, 10_000, 10, 100, 1_000, 10_000 }) {
			StringBuilder source = new StringBuilder("{");
			for (int i = 0; i < aliases; i++) {
				source.append(" a").append(i).append(": books(first: 100) { nodes { title author { name } } }");
			}
			String document = source.append(" }").toString();
			int repeats = Math.max(3, 200_000 / aliases);
			long parseNanos = 0;
			long costNanos = 0;
			double cost = 0;
			for (int i = 0; i < repeats; i++) {
				long start = System.nanoTime();
				Document parsed = parse(document);
				long parsedAt = System.nanoTime();
				cost = costs.estimate(parsed, QueryCosts.operation(parsed, null), Map.of());
				costNanos += System.nanoTime() - parsedAt;
				parseNanos += parsedAt - start;
			}
			double kilobytes = document.getBytes(StandardCharsets.UTF_8).length / 1024.0;
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("aliases", aliases);
			row.put("kilobytes", Math.round(kilobytes * 10) / 10.0);
			row.put("cost", (long) cost);
			row.put("costMicrosPerKilobyte", costNanos / 1e3 / repeats / kilobytes);
			row.put("parseMicrosPerKilobyte", parseNanos / 1e3 / repeats / kilobytes);
			System.out.printf("%6d aliases %8.1f KB  cost %10d  costing %6.2f us/KB  parsing %6.2f us/KB%n", aliases,
					kilobytes, (long) cost, costNanos / 1e3 / repeats / kilobytes,
					parseNanos / 1e3 / repeats / kilobytes);
			rows.add(row);
		}
		return rows;
	}

	private static Document parse(String document) {
		return Parser.parse(ParserEnvironment.newParserEnvironment()
			.document(document)
			.parserOptions(ParserOptions.newParserOptions()
				.maxTokens(Integer.MAX_VALUE)
				.maxWhitespaceTokens(Integer.MAX_VALUE)
				.maxCharacters(Integer.MAX_VALUE)
				.build())
			.build());
	}

	private static graphql.schema.GraphQLSchema schema() {
		try (var in = GraphQlCost.class.getResourceAsStream("/bench-graphql/library.graphqls")) {
			graphql.schema.idl.TypeDefinitionRegistry registry = new graphql.schema.idl.SchemaParser()
				.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
			new CostDirectives().configure(registry);
			return graphql.schema.idl.UnExecutableSchemaGenerator.makeUnExecutableSchema(registry);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static WebGraphQlHandler handler(List<ConfigurableApplicationContext> contexts, RedisServer redis,
			String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.graphql.schema.locations=classpath:bench-graphql/",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.properties(properties)
			.run();
		contexts.add(context);
		return WebGraphQlHandler.builder(context.getBean(ExecutionGraphQlService.class))
			.interceptors(context.getBeanProvider(WebGraphQlInterceptor.class).orderedStream().toList())
			.build();
	}

	/** 100 aliases of one book, each asked for by an identifier of 1,000 characters. */
	private static String largeDocument() {
		StringBuilder document = new StringBuilder("{");
		for (int i = 0; i < 100; i++) {
			document.append(" b").append(i).append(": book(id: \"").append("x".repeat(1000)).append("\") { title }");
		}
		return document.append(" }").toString();
	}

	private static Map<String, Object> run(String name, WebGraphQlHandler handler, String document, int operations,
			boolean warmUp) {
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		HttpHeaders headers = new HttpHeaders();
		InetSocketAddress caller = new InetSocketAddress("10.0.0.1", 40000);
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		int refused = 0;
		for (int i = 0; i < operations; i++) {
			Map<String, Object> body = new HashMap<>();
			body.put("query", document);
			WebGraphQlResponse response = handler
				.handleRequest(new WebGraphQlRequest(URI.create("http://localhost/graphql"), headers, null, caller,
						new HashMap<>(), body, Integer.toString(i), Locale.ENGLISH))
				.block();
			if (!response.getExecutionResult().isDataPresent()) {
				refused++;
			}
		}
		double cpuMicros = (os.getProcessCpuTime() - cpu) / 1e3 / operations;
		double wallMicros = (System.nanoTime() - start) / 1e3 / operations;
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("operation", name);
		row.put("warmUp", warmUp);
		row.put("operations", operations);
		row.put("refused", refused);
		row.put("cpuMicrosPerOperation", cpuMicros);
		row.put("wallMicrosPerOperation", wallMicros);
		System.out.printf("%-16s %s operations %6d refused %6d  CPU us/op %6.1f  wall us/op %6.1f%n", name,
				warmUp ? "(warm-up)" : "         ", operations, refused, cpuMicros, wallMicros);
		return row;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(
			classes = { org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class,
					org.springframework.boot.graphql.autoconfigure.GraphQlAutoConfiguration.class,
					dev.limiter.autoconfigure.LimiterAutoConfiguration.class, LimiterGraphQlAutoConfiguration.class })
	static class Application {

		@Bean
		Books books() {
			return new Books();
		}

	}

	/** The one resolver the trivial query enters. */
	@Controller
	static class Books {

		@QueryMapping
		Map<String, Object> book(@Argument String id) {
			return Map.of("id", id, "title", "Dune");
		}

	}

}
