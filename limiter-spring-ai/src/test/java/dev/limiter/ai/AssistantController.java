package dev.limiter.ai;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

// The README's endpoint, as written there (ReadmeIntegrationTests compares them).
@RestController
class AssistantController {

	private final ChatClient chat;

	AssistantController(ChatClient.Builder builder) {
		this.chat = builder.build();
	}

	@PostMapping("/ask")
	String ask(@RequestBody String question) {
		return this.chat.prompt().user(question).call().content();
	}

}
