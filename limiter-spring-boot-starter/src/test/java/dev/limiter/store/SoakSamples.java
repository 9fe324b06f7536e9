package dev.limiter.store;

import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.LockSupport;

import dev.limiter.test.RedisServer;

/**
 * What the soaks sample and how they pace themselves: the heap after a full GC, the live
 * threads, a Redis's used memory and key count.
 */
final class SoakSamples {

	private SoakSamples() {
	}

	static Sample sample(RedisServer redis, double minute) {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
		int threads = ManagementFactory.getThreadMXBean().getThreadCount();
		String info = String.valueOf(redis.command("INFO", "memory"));
		long usedMemory = Long.parseLong(info.replaceAll("(?s).*used_memory:(\\d+).*", "$1"));
		long keys = (Long) redis.command("DBSIZE");
		return new Sample(minute, heap / (1024 * 1024), threads, usedMemory / 1024, keys);
	}

	static double minutes(long start) {
		return Math.round((System.nanoTime() - start) / 6e8) / 100.0;
	}

	static void sleepUntil(long nanoTime) {
		long left;
		while ((left = nanoTime - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

	record Sample(double minute, long heapMb, int threads, long redisKb, long redisKeys) {
	}

}
