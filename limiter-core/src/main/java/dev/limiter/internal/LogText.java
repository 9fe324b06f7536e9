package dev.limiter.internal;

/**
 * Text that came from a request, an upstream or an operator (a key, a plan, a header, an
 * exception's message that quotes them) as Limiter writes it into its log: on one line,
 * control characters written as {@code \\uXXXX}, so that a newline in a header cannot
 * forge a log line.
 */
public final class LogText {

	private LogText() {
	}

	/**
	 * Return the text on one line.
	 * @param value the text, or {@code null}
	 * @return the text with its control characters escaped, or {@code null}
	 */
	public static String oneLine(String value) {
		if (value == null) {
			return null;
		}
		StringBuilder escaped = null;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c == 0x7f) {
				escaped = (escaped != null) ? escaped : new StringBuilder(value.substring(0, i));
				escaped.append(String.format("\\u%04x", (int) c));
			}
			else if (escaped != null) {
				escaped.append(c);
			}
		}
		return (escaped != null) ? escaped.toString() : value;
	}

}
