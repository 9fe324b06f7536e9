package dev.limiter.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sources of Limiter's scripts, composed from the files of {@code META-INF/scripts/}:
 * each script is {@code prelude.lua} (the call's time, the keys' time to live) followed
 * by a driver, into which the sections of the algorithms' fragments are placed. Each
 * algorithm's logic is written once, in its fragment; the drivers only differ in how they
 * call it.
 * <p>
 * A fragment opens with comments, then sections, each opened by a line
 * {@code --@<section>}: {@code functions} (optional helpers), {@code load},
 * {@code record}, {@code wait} (sets {@code wait}), {@code reset} (sets {@code reset}),
 * {@code slice} (optional, sets {@code slice}), {@code release} (headed
 * {@code --@release unloaded} when it reads nothing a load sets, so that an end runs no
 * load first) and {@code charge} (optional: a cost known after the call, counted past the
 * threshold if need be; only the composed script calls it). A section reads
 * {@code limit}, {@code now} and, where it needs them, {@code permits}, {@code token} and
 * {@code at}, and never returns.
 * <ul>
 * <li>{@code limits.lua}, the driver for any call, gets each used algorithm's sections as
 * the functions of its {@code algorithms} table where {@code --@algorithms} stands.</li>
 * <li>{@code single.lua}, the driver for the commonest call (one limit, rejected calls
 * not recorded), gets one algorithm's sections inlined where {@code --@<section>} stands:
 * straight-line code, with no table of algorithms to build and no function to call per
 * step.</li>
 * <li>{@code single_release.lua}, the driver for the commonest end (one limit whose
 * release reads nothing a load sets), gets that release inlined.</li>
 * </ul>
 */
final class ScriptSources {

	private static final String LOCATION = "META-INF/scripts/";

	private static final String MARKER = "--@";

	/** The functions a section becomes in limits.lua: parameters, then what it sets. */
	private static final Map<String, String[]> FUNCTIONS = Map.of("load", new String[] { "limit, now", null }, "record",
			new String[] { "limit, now, permits, token", null }, "wait", new String[] { "limit, now, permits", "wait" },
			"reset", new String[] { "limit, now", "reset" }, "slice", new String[] { "limit", "slice" }, "release",
			new String[] { "limit, now, permits, token, at", null }, "charge",
			new String[] { "limit, now, permits", null });

	/**
	 * The heading of a release that reads only the limit's key, the permits, the token
	 * and the time: limits.lua gives such an algorithm's end back without loading its
	 * state.
	 */
	private static final String RELEASE_UNLOADED = "release unloaded";

	private static final String UNLOADED = "unloaded";

	private static final List<String> REQUIRED = List.of("load", "record", "wait", "reset", "release");

	private static final List<String> ORDER = List.of("load", "record", "wait", "reset", "slice", "release", "charge");

	private ScriptSources() {
	}

	/**
	 * Return the source of the script for calls whose limits use the given algorithms.
	 * @param codes the algorithms' codes
	 * @return the source
	 */
	static String composed(List<String> codes) {
		StringBuilder functions = new StringBuilder();
		StringBuilder table = new StringBuilder();
		for (String code : codes) {
			Map<String, String> sections = sections(code);
			functions.append(sections.getOrDefault("functions", ""));
			table.append("algorithms['").append(code).append("'] = {\n");
			if (sections.containsKey(UNLOADED)) {
				table.append("unloaded = true,\n");
			}
			for (String name : ORDER) {
				String section = sections.get(name);
				if (section != null) {
					String[] function = FUNCTIONS.get(name);
					table.append(name).append(" = function(").append(function[0]).append(")\n");
					if (function[1] != null) {
						table.append("local ").append(function[1]).append('\n');
					}
					table.append(section);
					if (function[1] != null) {
						table.append("return ").append(function[1]).append('\n');
					}
					table.append("end,\n");
				}
			}
			table.append("}\n");
		}
		return prelude() + LoadedScript.read(LOCATION + "limits.lua")
			.replace(MARKER + "algorithms\n", functions.toString() + table);
	}

	/**
	 * Return the source of the script for the acquire of one limit of the given
	 * algorithm, rejected calls not recorded.
	 * @param code the algorithm's code
	 * @return the source
	 */
	static String single(String code) {
		String source = LoadedScript.read(LOCATION + "single.lua");
		for (Map.Entry<String, String> section : sections(code).entrySet()) {
			source = source.replace(MARKER + section.getKey() + "\n", section.getValue());
		}
		source = source.replace(MARKER + "functions\n", "");
		if (source.contains(MARKER)) {
			throw new IllegalStateException("The fragment of " + code + " lacks a section that single.lua places: "
					+ source.substring(source.indexOf(MARKER)).lines().findFirst().orElse(""));
		}
		return prelude() + source;
	}

	/**
	 * Return whether an algorithm's release reads nothing a load sets
	 * ({@code --@release unloaded}).
	 * @param code the algorithm's code
	 * @return whether an end or a refund can run without loading the limit
	 */
	static boolean releasesUnloaded(String code) {
		return sections(code).containsKey(UNLOADED);
	}

	/**
	 * Return the source of the script for the release of one limit of an algorithm whose
	 * release reads nothing a load sets.
	 * @param code the algorithm's code
	 * @return the source
	 */
	static String singleRelease(String code) {
		Map<String, String> sections = sections(code);
		if (!sections.containsKey(UNLOADED)) {
			throw new IllegalStateException("The release of " + code + " loads the limit: single_release.lua is "
					+ "for a release headed --@release unloaded");
		}
		return prelude() + LoadedScript.read(LOCATION + "single_release.lua")
			.replace(MARKER + "functions\n", sections.getOrDefault("functions", ""))
			.replace(MARKER + "release\n", sections.get("release"));
	}

	private static String prelude() {
		return LoadedScript.read(LOCATION + "prelude.lua") + '\n';
	}

	/** Split a fragment into its sections, each with its lines and a final newline. */
	private static Map<String, String> sections(String code) {
		String location = LOCATION + "algorithms/" + code + ".lua";
		Map<String, String> sections = new LinkedHashMap<>();
		String name = null;
		StringBuilder section = new StringBuilder();
		for (String line : LoadedScript.read(location).split("\n", -1)) {
			if (line.startsWith(MARKER)) {
				if (name != null) {
					sections.put(name, section.toString());
				}
				name = line.substring(MARKER.length()).strip();
				if (name.equals(RELEASE_UNLOADED)) {
					// a release that reads nothing a load sets: an end runs no load first
					sections.put(UNLOADED, "");
					name = "release";
				}
				if (!name.equals("functions") && !FUNCTIONS.containsKey(name)) {
					throw new IllegalStateException("Unknown section '" + name + "' in " + location);
				}
				section.setLength(0);
			}
			else if (name != null && !line.isEmpty()) {
				section.append(line).append('\n');
			}
		}
		if (name != null) {
			sections.put(name, section.toString());
		}
		for (String required : REQUIRED) {
			if (!sections.containsKey(required)) {
				throw new IllegalStateException(location + " has no section --@" + required);
			}
		}
		return sections;
	}

}
