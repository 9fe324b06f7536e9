package dev.limiter.graphql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SubscriptionMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.limiter.annotation.RateLimit;

/**
 * The resolvers of the library's schema (src/test/resources/graphql): three books, as
 * many authors as asked for, counting every resolver entered.
 */
@Controller
class Library {

	static final AtomicInteger entered = new AtomicInteger();

	private static final List<Map<String, Object>> BOOKS = List.of(book("1", "Dune"), book("2", "Emma"),
			book("3", "Ulysses"));

	@QueryMapping
	Map<String, Object> books(@Argument Integer first) {
		entered.incrementAndGet();
		List<Map<String, Object>> nodes = BOOKS.subList(0, Math.min(BOOKS.size(), (first != null) ? first : 3));
		List<Map<String, Object>> edges = new ArrayList<>();
		for (Map<String, Object> node : nodes) {
			edges.add(Map.of("cursor", node.get("id"), "node", node));
		}
		return Map.of("nodes", nodes, "edges", edges, "totalCount", BOOKS.size(), "pageInfo",
				Map.of("hasNextPage", false));
	}

	@QueryMapping
	Map<String, Object> book(@Argument String id) {
		entered.incrementAndGet();
		return BOOKS.stream().filter((book) -> book.get("id").equals(id)).findFirst().orElse(null);
	}

	@QueryMapping
	List<Map<String, Object>> authors(@Argument Integer limit) {
		entered.incrementAndGet();
		List<Map<String, Object>> authors = new ArrayList<>();
		for (int i = 0; i < Math.min(1_000, (limit != null) ? limit : 10); i++) {
			authors.add(Map.of("id", "a" + i, "name", "Author " + i));
		}
		return authors;
	}

	@QueryMapping
	@RateLimit(threshold = 1, period = 60)
	Mono<String> limitedTitle(@Argument String id) {
		entered.incrementAndGet();
		return Mono.just("Dune");
	}

	@SubscriptionMapping
	Flux<Map<String, Object>> reviewAdded(@Argument String bookId) {
		entered.incrementAndGet();
		return Flux.just(Map.of("id", "r1", "stars", 5));
	}

	private static Map<String, Object> book(String id, String title) {
		return Map.of("id", id, "title", title, "tags", List.of(), "author",
				Map.of("id", "a" + id, "name", "Author of " + title), "reviews", List.of());
	}

}
