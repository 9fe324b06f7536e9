package com.example.graphql;

import java.util.List;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.stereotype.Controller;

/**
 * The README's library: three books without reviews, whatever a query asks for.
 */
@SpringBootApplication
public class LibraryApplication {

	public static void main(String[] args) {
		SpringApplication.run(LibraryApplication.class, args);
	}

	/** The README schema's resolvers. */
	@Controller
	static class Library {

		@QueryMapping
		BookConnection books(@Argument Integer first) {
			List<Book> books = List.of(new Book("1", "Dune"), new Book("2", "Emma"), new Book("3", "Ulysses"));
			return new BookConnection(books, books.size());
		}

		@QueryMapping
		List<Author> authors(@Argument Integer limit) {
			return List.of();
		}

		@SchemaMapping
		List<Review> reviews(Book book, @Argument Integer first) {
			return List.of();
		}

	}

	record BookConnection(List<Book> nodes, int totalCount) {
	}

	record Book(String id, String title) {
	}

	record Author(String id, String name, Double rating) {
	}

	record Review(String id, int stars) {
	}

}
