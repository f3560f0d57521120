package org.pettingllms.envs.search;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a reply of the search task asks for. Tags, in either prompt style: {@code <search>q</search>},
 * {@code <answer>a</answer>}, {@code <more>what</more>} (the last tag in the reply counts; an unclosed last tag runs
 * to the end of the reply, as a stop string leaves it; {@code <think>} blocks are skipped). Without tags the bare
 * forms of the compact style: the searcher's whole reply is its query, the answerer's is its answer or {@code more}
 * ({@code more: what}), and alone {@code search: q} searches and anything else answers ({@code answer: a} too).
 */
record Replies(Kind kind, String text) {
    enum Kind {
        SEARCH,
        ANSWER,
        MORE,
        /** nothing this role may do: the format penalty */
        NONE
    }

    static final int MAX_ANSWER_CHARS = 200;
    private static final Pattern THINK = Pattern.compile("(?s)<think>.*?(</think>|$)");
    private static final Pattern TAG = Pattern.compile("(?s)<(search|answer|more)>(.*?)(?:</\\1>|$)");
    private static final Pattern ANY_TAG = Pattern.compile("</?(search|answer|more|information)\\b");

    /** @param role the searcher, the answerer of a team, or the answerer alone */
    static Replies parse(String reply, String role, boolean alone) {
        String text = THINK.matcher(reply).replaceAll(" ");
        boolean searcher = role.equals(SearchTask.SEARCHER);
        Matcher m = TAG.matcher(text);
        String tag = null;
        String body = null;
        while (m.find()) {
            tag = m.group(1);
            body = m.group(2).strip();
        }
        if (tag != null) {
            return switch (tag) {
                case "search" ->
                    searcher || alone
                            ? query(body)
                            : new Replies(Kind.MORE, SearchPrompts.oneLine(body)); // the answerer asks for this
                case "answer" -> searcher ? none() : answer(body);
                default -> searcher || alone ? none() : new Replies(Kind.MORE, SearchPrompts.oneLine(body));
            };
        }
        if (ANY_TAG.matcher(text).find()) {
            return none(); // a tag it may not use, or a broken one
        }
        String bare = text.strip();
        if (searcher) {
            return query(bare);
        }
        String lower = bare.toLowerCase(Locale.ROOT);
        if (alone) {
            if (lower.startsWith("search:")) {
                return query(bare.substring("search:".length()));
            }
            return answer(lower.startsWith("answer:") ? bare.substring("answer:".length()) : bare);
        }
        if (lower.equals("more") || lower.startsWith("more:")) {
            return new Replies(
                    Kind.MORE, SearchPrompts.oneLine(bare.substring(4).replaceFirst("^:", "")));
        }
        return answer(lower.startsWith("answer:") ? bare.substring("answer:".length()) : bare);
    }

    private static Replies query(String q) {
        String one = q.strip().replaceAll("\\s+", " ");
        return one.isEmpty() ? none() : new Replies(Kind.SEARCH, one);
    }

    private static Replies answer(String a) {
        String first = a.strip().lines().findFirst().orElse("").strip();
        if (first.isEmpty()) {
            return none();
        }
        return new Replies(
                Kind.ANSWER, first.length() > MAX_ANSWER_CHARS ? first.substring(0, MAX_ANSWER_CHARS) : first);
    }

    private static Replies none() {
        return new Replies(Kind.NONE, "");
    }
}
