package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.envs.code.CodeItem.TestCase;

/**
 * The tester's answer formats: pairs of {@code **Test Input:**} and {@code **Test Output:**} fenced blocks, and, in
 * compact prompts for function problems, one {@code call==expected} per line ({@code f([3,7])==10}).
 */
public final class TestBlocks {
    private static final Pattern PAIR = Pattern.compile(
            "\\*\\*Test Input:?\\*\\*:?\\s*```[^\\n]*\\n(.*?)```\\s*\\*\\*Test Output:?\\*\\*:?\\s*```[^\\n]*\\n(.*?)```",
            Pattern.DOTALL);

    private TestBlocks() {}

    /** The tests in {@code text}, at most {@code max}. */
    public static List<TestCase> parse(String text, int max) {
        List<TestCase> out = new ArrayList<>();
        Matcher m = PAIR.matcher(text);
        while (m.find() && out.size() < max) {
            out.add(new TestCase(m.group(1), m.group(2)));
        }
        return out;
    }

    public static String format(List<TestCase> tests) {
        StringBuilder sb = new StringBuilder();
        for (TestCase t : tests) {
            sb.append("**Test Input:**\n```\n")
                    .append(t.input().strip())
                    .append("\n```\n**Test Output:**\n```\n")
                    .append(t.output().strip())
                    .append("\n```\n\n");
        }
        return sb.toString();
    }

    /** The compact function tests in {@code text}: lines {@code entry(...)==expected}, at most {@code max}. */
    public static List<TestCase> parseCalls(String text, String entry, int max) {
        Pattern line = Pattern.compile("^\\s*(" + Pattern.quote(entry) + "\\(.*\\))\\s*==\\s*(\\S.*?)\\s*$");
        List<TestCase> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            Matcher m = line.matcher(l);
            if (m.matches() && out.size() < max) {
                out.add(new TestCase(m.group(1), m.group(2)));
            }
        }
        return out;
    }

    /** Function tests as {@link #parseCalls} reads them. */
    public static String formatCalls(List<TestCase> tests) {
        StringBuilder sb = new StringBuilder();
        for (TestCase t : tests) {
            sb.append(t.input().strip()).append("==").append(t.output().strip()).append('\n');
        }
        return sb.toString();
    }
}
