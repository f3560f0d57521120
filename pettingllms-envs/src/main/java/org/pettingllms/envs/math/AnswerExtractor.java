package org.pettingllms.envs.math;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the final answer in a model's text (ENVIRONMENTS.md): the last {@code \boxed{...}} (nested braces
 * allowed), else the last "Answer:" line, else a GSM8K {@code #### n} line, else the last number.
 */
public final class AnswerExtractor {
    private static final Pattern ANSWER_LINE = Pattern.compile("(?im)(?:final answer|answer)\\s*(?:is)?\\s*[:：]\\s*(.+)$");
    private static final Pattern HASHES = Pattern.compile("(?m)^\\s*####\\s*(.+)$");
    private static final Pattern NUMBER = Pattern.compile("-?\\d[\\d,]*(?:\\.\\d+)?(?:/\\d+)?|-?\\.\\d+");

    private AnswerExtractor() {
    }

    public static Optional<String> extract(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        Optional<String> boxed = lastBoxed(text);
        if (boxed.isPresent()) {
            return boxed;
        }
        String answerLine = lastGroup(ANSWER_LINE.matcher(text));
        if (answerLine != null) {
            return Optional.of(trimSentence(answerLine));
        }
        String hashes = lastGroup(HASHES.matcher(text));
        if (hashes != null) {
            return Optional.of(hashes.strip());
        }
        String number = null;
        Matcher m = NUMBER.matcher(text);
        while (m.find()) {
            number = m.group();
        }
        return Optional.ofNullable(number).map(n -> n.replaceAll(",(?=\\d{3}\\b)", ""));
    }

    /** The content of the last {@code \boxed{...}} or {@code \fbox{...}}, braces balanced. */
    public static Optional<String> lastBoxed(String text) {
        int at = Math.max(text.lastIndexOf("\\boxed"), text.lastIndexOf("\\fbox"));
        while (at >= 0) {
            int open = text.indexOf('{', at);
            if (open >= 0 && text.substring(at, open).matches("\\\\(boxed|fbox)\\s*")) {
                int depth = 0;
                for (int i = open; i < text.length(); i++) {
                    char c = text.charAt(i);
                    if (c == '{') {
                        depth++;
                    } else if (c == '}' && --depth == 0) {
                        return Optional.of(text.substring(open + 1, i).strip());
                    }
                }
            }
            String before = text.substring(0, at);
            at = Math.max(before.lastIndexOf("\\boxed"), before.lastIndexOf("\\fbox"));
        }
        return Optional.empty();
    }

    private static String lastGroup(Matcher m) {
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        return last == null || last.isBlank() ? null : last;
    }

    /** "Answer: 42." -> "42": a sentence's final period is not part of the answer. */
    private static String trimSentence(String s) {
        String t = s.strip();
        return (t.endsWith(".") ? t.substring(0, t.length() - 1) : t).strip();
    }
}
