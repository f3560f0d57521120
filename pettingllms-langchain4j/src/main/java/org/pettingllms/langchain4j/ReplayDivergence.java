package org.pettingllms.langchain4j;

import org.pettingllms.core.data.Prompt;

/**
 * A replayed program asked something other than what it asked when recorded: it is not deterministic given its
 * model answers. The message names the call and the prompts' first difference.
 */
public final class ReplayDivergence extends RuntimeException {
    ReplayDivergence(int call, String recordedRole, Prompt recorded, String role, Prompt asked) {
        super(message(call, recordedRole, recorded, role, asked));
    }

    private ReplayDivergence(String message) {
        super(message);
    }

    /** The replay ended after {@code made} calls where the recorded run went on to call {@code expected}. */
    static ReplayDivergence ended(int made, int expected) {
        return new ReplayDivergence("replay diverged: the program ended after " + made
                + " model calls, where the recorded run made call " + expected);
    }

    private static String message(int call, String recordedRole, Prompt recorded, String role, Prompt asked) {
        if (!recordedRole.equals(role)) {
            return "replay diverged at call " + call + ": recorded role '" + recordedRole + "', replay asked '" + role
                    + "'";
        }
        String a = recorded.text();
        String b = asked.text();
        int at = 0;
        while (at < Math.min(a.length(), b.length()) && a.charAt(at) == b.charAt(at)) {
            at++;
        }
        return "replay diverged at call " + call + " (" + role + "): the prompts first differ at character " + at
                + ": recorded " + snippet(a, at) + ", replay " + snippet(b, at)
                + (recorded.messages().size() != asked.messages().size()
                        ? " (" + recorded.messages().size() + " vs "
                                + asked.messages().size() + " messages)"
                        : "");
    }

    private static String snippet(String s, int at) {
        String part = s.substring(Math.max(0, at - 12), Math.min(s.length(), at + 12));
        return "\"" + part.replace("\n", "\\n") + "\"";
    }
}
