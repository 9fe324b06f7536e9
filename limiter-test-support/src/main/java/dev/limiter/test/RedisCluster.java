package dev.limiter.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster of {@code redis-server} processes in cluster mode on free ports,
 * masters only, slots split evenly; created without {@code redis-cli}.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private final List<RedisServer> nodes;

	/**
	 * How many of the nodes are replicas: the last ones, node {@code i + replicas} of
	 * master {@code i}.
	 */
	private final int replicas;

	private RedisCluster(List<RedisServer> nodes, int replicas) {
		this.nodes = nodes;
		this.replicas = replicas;
	}

	/**
	 * Start a cluster and wait until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters, at least 3
	 * @return the running cluster
	 */
	public static RedisCluster start(int masters) {
		return start(masters, 0, Duration.ofSeconds(5));
	}

	/**
	 * Start a cluster whose masters each have a replica, and wait until every node
	 * reports {@code cluster_state:ok} and every replica is in sync with its master; a
	 * master that stops answering for the node timeout is replaced by its replica.
	 * @param masters how many masters, at least 3
	 * @param nodeTimeout how long a node may stay silent before the cluster fails it over
	 * @return the running cluster
	 */
	public static RedisCluster startWithReplicas(int masters, Duration nodeTimeout) {
		return start(masters, masters, nodeTimeout);
	}

	private static RedisCluster start(int masters, int replicas, Duration nodeTimeout) {
		List<RedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters + replicas; i++) {
				int port = RedisServer.freePort();
				nodes.add(RedisServer.startProcess(port, "--cluster-enabled", "yes", "--cluster-config-file",
						"nodes-" + port + ".conf", "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis())));
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
			for (int i = 1; i < nodes.size(); i++) {
				expectOk(first.command("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port())));
			}
			RedisCluster cluster = new RedisCluster(nodes, replicas);
			cluster.awaitKnown();
			for (int i = 0; i < replicas; i++) {
				String masterId = String.valueOf(nodes.get(i).command("CLUSTER", "MYID"));
				expectOk(nodes.get(masters + i).command("CLUSTER", "REPLICATE", masterId));
			}
			cluster.awaitOk();
			for (int i = 0; i < replicas; i++) {
				RedisServer replica = nodes.get(masters + i);
				Await.until("replica " + replica.port() + " to sync", Await.DEFAULT_TIMEOUT,
						() -> String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up"));
			}
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

	private void awaitKnown() {
		Await.until("every node to know every other", Await.DEFAULT_TIMEOUT, () -> {
			for (RedisServer node : this.nodes) {
				if (String.valueOf(node.command("CLUSTER", "NODES")).lines().count() != this.nodes.size()) {
					return false;
				}
			}
			return true;
		});
	}

	/**
	 * Wait until the cluster serves every slot again after a master died: its replica
	 * promoted and every live node reporting {@code cluster_state:ok}.
	 * @param dead the master that died
	 */
	public void awaitFailover(RedisServer dead) {
		RedisServer replica = this.nodes.get(this.nodes.indexOf(dead) + this.replicas);
		Await.until("the cluster to promote " + replica.port() + ", the replica of " + dead.port(),
				Await.DEFAULT_TIMEOUT, () -> {
					if (!String.valueOf(replica.command("INFO", "replication")).contains("role:master")) {
						return false;
					}
					for (RedisServer node : this.nodes) {
						if (node != dead
								&& !String.valueOf(node.command("CLUSTER", "INFO")).contains("cluster_state:ok")) {
							return false;
						}
					}
					return true;
				});
	}

	/**
	 * Move a slot and its keys from one master to another, the way {@code redis-cli
	 * --cluster reshard} does: mark it importing and migrating, {@code MIGRATE} its keys,
	 * then give it to the new master on every node. Clients meanwhile get {@code ASK}
	 * redirects for moved keys, then {@code MOVED}.
	 * @param slot the slot
	 * @param from the master that serves it now
	 * @param to the master that serves it afterwards
	 */
	public void migrateSlot(int slot, RedisServer from, RedisServer to) {
		String fromId = String.valueOf(from.command("CLUSTER", "MYID"));
		String toId = String.valueOf(to.command("CLUSTER", "MYID"));
		String number = Integer.toString(slot);
		expectOk(to.command("CLUSTER", "SETSLOT", number, "IMPORTING", fromId));
		expectOk(from.command("CLUSTER", "SETSLOT", number, "MIGRATING", toId));
		while (true) {
			List<?> keys = (List<?>) from.command("CLUSTER", "GETKEYSINSLOT", number, "100");
			if (keys.isEmpty()) {
				break;
			}
			List<String> migrate = new ArrayList<>(
					List.of("MIGRATE", to.host(), Integer.toString(to.port()), "", "0", "5000", "KEYS"));
			keys.forEach((key) -> migrate.add(key.toString()));
			expectOk(from.command(migrate.toArray(String[]::new)));
		}
		// The new owner first, then the old one, then the rest, as Redis's guide says.
		List<RedisServer> order = new ArrayList<>(List.of(to, from));
		masters().stream().filter((node) -> !order.contains(node)).forEach(order::add);
		for (RedisServer node : order) {
			expectOk(node.command("CLUSTER", "SETSLOT", number, "NODE", toId));
		}
	}

	private void awaitOk() {
		Await.until("Redis Cluster to reach cluster_state:ok", Await.DEFAULT_TIMEOUT, () -> {
			boolean ok = true;
			for (RedisServer node : this.nodes) {
				String info = String.valueOf(node.command("CLUSTER", "INFO"));
				String nodes = String.valueOf(node.command("CLUSTER", "NODES"));
				ok &= info.contains("cluster_state:ok") && nodes.lines().count() == this.nodes.size();
			}
			return ok;
		});
	}

	/**
	 * Return every node, the masters first.
	 * @return the nodes
	 */
	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/**
	 * Return the masters the cluster started with.
	 * @return the first masters
	 */
	public List<RedisServer> masters() {
		return this.nodes.subList(0, this.nodes.size() - this.replicas);
	}

	/**
	 * Return the first master that holds any key, such as the one whose slot holds a
	 * test's only key.
	 * @return the master
	 */
	public RedisServer masterHoldingKeys() {
		for (RedisServer master : masters()) {
			if ((Long) master.command("DBSIZE") > 0) {
				return master;
			}
		}
		throw new IllegalStateException("No master holds a key");
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
