package com.example.consumer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Sends GET requests all at once, as many clients would.
 */
final class Concurrent {

	private static final HttpClient http = HttpClient.newHttpClient();

	private Concurrent() {
	}

	/**
	 * Send one GET per address, 16 at a time, and return the statuses in order.
	 */
	static List<Integer> statuses(List<URI> uris) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			List<Callable<Integer>> requests = new ArrayList<>();
			for (URI uri : uris) {
				requests.add(() -> http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
					.statusCode());
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<Integer> status : executor.invokeAll(requests)) {
				statuses.add(status.get());
			}
			return statuses;
		}
		finally {
			executor.shutdownNow();
		}
	}

}
