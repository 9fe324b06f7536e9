package dev.limiter.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A real Redis Cluster of {@code redis-server} processes in cluster mode on free ports,
 * masters only, slots split evenly; created without {@code redis-cli}.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private final List<RedisServer> nodes;

	private RedisCluster(List<RedisServer> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Start a cluster and wait until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters, at least 3
	 * @return the running cluster
	 */
	public static RedisCluster start(int masters) {
		List<RedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters; i++) {
				int port = RedisServer.freePort();
				nodes.add(RedisServer.startProcess(port, "--cluster-enabled", "yes", "--cluster-config-file",
						"nodes-" + port + ".conf", "--cluster-node-timeout", "5000"));
			}
			for (int i = 0; i < masters; i++) {
				int from = i * SLOTS / masters;
				int to = (i + 1) * SLOTS / masters;
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = from; slot < to; slot++) {
					command.add(Integer.toString(slot));
				}
				expectOk(nodes.get(i).command(command.toArray(String[]::new)));
			}
			RedisServer first = nodes.get(0);
			for (int i = 1; i < masters; i++) {
				expectOk(first.command("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port())));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.awaitOk();
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisServer::close);
			throw ex;
		}
	}

	private static void expectOk(Object reply) {
		if (!"OK".equals(reply)) {
			throw new IllegalStateException("Cluster set-up failed: " + reply);
		}
	}

	private void awaitOk() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			boolean ok = true;
			for (RedisServer node : this.nodes) {
				String info = String.valueOf(node.command("CLUSTER", "INFO"));
				String nodes = String.valueOf(node.command("CLUSTER", "NODES"));
				ok &= info.contains("cluster_state:ok") && nodes.lines().count() == this.nodes.size();
			}
			if (ok) {
				return;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		throw new IllegalStateException("Redis Cluster did not reach cluster_state:ok in 30s");
	}

	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/**
	 * Return the nodes as {@code host:port} strings, as
	 * {@code spring.data.redis.cluster.nodes} takes them.
	 * @return the node addresses
	 */
	public List<String> addresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/**
	 * Remove every key from every master.
	 */
	public void flushAll() {
		this.nodes.forEach((node) -> node.command("FLUSHALL"));
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisServer::close);
	}

}
