package dev.limiter.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A replicated Redis under Sentinel, all real processes on free ports: a master, a
 * replica of it, and three Sentinels (quorum 2) that promote the replica when the master
 * dies.
 */
public final class RedisSentinels implements AutoCloseable {

	/**
	 * The name the Sentinels give the master, for
	 * {@code spring.data.redis.sentinel.master}.
	 */
	public static final String MASTER_NAME = "limiter";

	private static final int QUORUM = 2;

	private final RedisServer master;

	private final RedisServer replica;

	private final List<RedisServer> sentinels;

	private RedisSentinels(RedisServer master, RedisServer replica, List<RedisServer> sentinels) {
		this.master = master;
		this.replica = replica;
		this.sentinels = sentinels;
	}

	/**
	 * Start the servers and wait until the replica is in sync and every Sentinel knows
	 * the replica and the other Sentinels, so that a failover can happen.
	 * @param downAfter how long the master must be unreachable before the Sentinels act
	 * @return the running group
	 */
	public static RedisSentinels start(Duration downAfter) {
		List<RedisServer> started = new ArrayList<>();
		try {
			RedisServer master = RedisServer.startProcess(RedisServer.freePort());
			started.add(master);
			RedisServer replica = RedisServer.startProcess(RedisServer.freePort(), "--replicaof", master.host(),
					Integer.toString(master.port()));
			started.add(replica);
			List<RedisServer> sentinels = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				RedisServer sentinel = RedisServer.startSentinel(MASTER_NAME, master, QUORUM, downAfter);
				started.add(sentinel);
				sentinels.add(sentinel);
			}
			RedisSentinels group = new RedisSentinels(master, replica, List.copyOf(sentinels));
			group.awaitReady();
			return group;
		}
		catch (RuntimeException ex) {
			started.forEach(RedisServer::close);
			throw ex;
		}
	}

	private void awaitReady() {
		Await.until("the replica to sync with the master", Await.DEFAULT_TIMEOUT,
				() -> String.valueOf(this.replica.command("INFO", "replication")).contains("master_link_status:up"));
		Await.until("every Sentinel to know the replica and the other Sentinels", Await.DEFAULT_TIMEOUT, () -> {
			for (RedisServer sentinel : this.sentinels) {
				Object replicas = sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME);
				String master = String.valueOf(sentinel.command("SENTINEL", "MASTER", MASTER_NAME));
				if (!(replicas instanceof List<?> list) || list.isEmpty()
						|| !master.matches(".*num-other-sentinels, 2\\b.*")) {
					return false;
				}
			}
			return true;
		});
	}

	/**
	 * Wait until the Sentinels name another master than the one given, such as after a
	 * failover.
	 * @param former the master before the failover
	 * @param timeout how long to wait
	 */
	public void awaitMasterOtherThan(RedisServer former, Duration timeout) {
		Await.until("the Sentinels to promote a new master", timeout, () -> currentMasterPort() != former.port());
	}

	/**
	 * Return the port of the master the Sentinels name now.
	 * @return the port
	 */
	public int currentMasterPort() {
		for (RedisServer sentinel : this.sentinels) {
			Object reply = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
			if (reply instanceof List<?> address && address.size() == 2) {
				return Integer.parseInt(address.get(1).toString());
			}
		}
		throw new IllegalStateException("No Sentinel names a master for " + MASTER_NAME);
	}

	/**
	 * Ask a Sentinel for a failover now ({@code SENTINEL FAILOVER}), without waiting for
	 * the master to be down: the replica is promoted, and the master, alive, is made its
	 * replica (its clients disconnected), as an operator's or an orchestrator's planned
	 * switch does.
	 */
	public void failover() {
		Object reply = this.sentinels.get(0).command("SENTINEL", "FAILOVER", MASTER_NAME);
		if (!"OK".equals(String.valueOf(reply))) {
			throw new IllegalStateException("SENTINEL FAILOVER answered " + reply);
		}
	}

	public RedisServer master() {
		return this.master;
	}

	public RedisServer replica() {
		return this.replica;
	}

	/**
	 * Return the Sentinels as {@code host:port} strings, as
	 * {@code spring.data.redis.sentinel.nodes} takes them.
	 * @return the Sentinel addresses
	 */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList();
	}

	@Override
	public void close() {
		this.sentinels.forEach(RedisServer::close);
		this.replica.close();
		this.master.close();
	}

}
