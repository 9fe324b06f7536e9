package dev.limiter.benchmarks;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.limiter.test.RedisServer;

/**
 * A {@code redis-server} started the way the tests start one, and the one shared Lettuce
 * connection every contender runs on.
 */
public final class BenchRedis implements AutoCloseable {

	private final RedisServer server;

	private final ClientResources resources;

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate template;

	private final RedisAsyncCommands<byte[], byte[]> nativeCommands;

	private BenchRedis(RedisServer server, CommandLatencyRecorder recorder) {
		this.server = server;
		DefaultClientResources.Builder resources = DefaultClientResources.builder();
		if (recorder != null) {
			resources.commandLatencyRecorder(recorder);
		}
		this.resources = resources.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(this.resources)
			.build();
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()), client);
		// One native connection shared by every template operation and by Bucket4j.
		this.connectionFactory.setShareNativeConnection(true);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.template = new StringRedisTemplate(this.connectionFactory);
		this.template.afterPropertiesSet();
		@SuppressWarnings("unchecked")
		RedisAsyncCommands<byte[], byte[]> commands = (RedisAsyncCommands<byte[], byte[]>) this.connectionFactory
			.getConnection()
			.getNativeConnection();
		this.nativeCommands = commands;
	}

	/**
	 * Start a server and connect to it.
	 * @param recorder counts the commands sent, or {@code null}
	 * @return the running set-up
	 */
	public static BenchRedis start(CommandLatencyRecorder recorder) {
		return new BenchRedis(RedisServer.start(), recorder);
	}

	public RedisServer server() {
		return this.server;
	}

	public StringRedisTemplate template() {
		return this.template;
	}

	public RedisAsyncCommands<byte[], byte[]> nativeCommands() {
		return this.nativeCommands;
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
		this.resources.shutdown();
		this.server.close();
	}

}
