package dev.limiter.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import dev.limiter.testkit.LimiterTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The README's curl session, replayed on the sample: every status, every header the
 * README shows, and every body, as a client would copy them.
 */
@SpringBootTest(properties = "sample.demo-redis=false")
@LimiterTest
class ReadmeSessionTests {

	private static final String CALL = "$ curl -i localhost:8080/greeting";

	@Autowired
	private WebApplicationContext context;

	@Test
	void theReadmesSessionIsWhatTheSampleAnswers() throws Exception {
		List<List<String>> exchanges = exchanges(Files.readString(Path.of("..", "README.md")));
		assertThat(exchanges).hasSize(3);
		MockMvc mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
		for (List<String> shown : exchanges) {
			MockHttpServletResponse response = mvc.perform(get("/greeting")).andReturn().getResponse();
			assertThat("HTTP/1.1 " + response.getStatus()).isEqualTo(shown.get(0));
			int blank = shown.indexOf("");
			for (String header : shown.subList(1, blank)) {
				String[] field = header.split(": ", 2);
				assertThat(response.getHeader(field[0])).as(field[0]).isEqualTo(field[1]);
			}
			assertThat(response.getContentAsString()).isEqualTo(shown.get(blank + 1));
		}
	}

	/**
	 * Return each response the README shows: status line, header lines, a blank, the
	 * body.
	 */
	private static List<List<String>> exchanges(String readme) {
		List<List<String>> exchanges = new ArrayList<>();
		String[] lines = readme.split("\n");
		for (int i = 0; i < lines.length; i++) {
			if (lines[i].equals(CALL)) {
				List<String> exchange = new ArrayList<>();
				int line = i + 1;
				while (!lines[line].isEmpty()) {
					exchange.add(lines[line++]);
				}
				exchange.add("");
				exchange.add(lines[line + 1]);
				exchanges.add(exchange);
			}
		}
		return exchanges;
	}

}
