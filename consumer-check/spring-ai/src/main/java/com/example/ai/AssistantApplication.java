package com.example.ai;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The README's assistant: one endpoint whose ChatClient is built from Boot's builder.
 */
@SpringBootApplication
public class AssistantApplication {

	public static void main(String[] args) {
		SpringApplication.run(AssistantApplication.class, args);
	}

	/** The README's controller, as written. */
	@RestController
	static class AssistantController {

		private final ChatClient chat;

		AssistantController(ChatClient.Builder builder) {
			this.chat = builder.build();
		}

		@PostMapping("/ask")
		String ask(@RequestBody String question) {
			return this.chat.prompt().user(question).call().content();
		}

	}

}
