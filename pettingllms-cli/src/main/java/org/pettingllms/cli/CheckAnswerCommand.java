package org.pettingllms.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.pettingllms.envs.math.AnswerChecker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code check-answer}: the math reward's answer check, shown step by step, so that a user can see why a reward
 * was 0 (or 1): the extracted answer and the rule that found it, both normal forms, the verdict and its reason.
 */
@Command(
        name = "check-answer",
        mixinStandardHelpOptions = true,
        description = "Show how the math reward reads a model's text: the extracted answer, both normal forms, the "
                + "verdict and its reason. Exit code 0 whether or not the answer is right.")
final class CheckAnswerCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "TEXT", description = "the model's text (or @FILE to read it from a file)")
    String text;

    @Parameters(index = "1", paramLabel = "REFERENCE", description = "the reference answer")
    String reference;

    @Mixin
    CheckIo io = new CheckIo();

    @Override
    public Integer call() throws Exception {
        String modelText = CheckIo.text(text);
        AnswerChecker.Verdict v = AnswerChecker.check(modelText, reference);
        int[] span = span(modelText, v.extracted());
        return io.print(
                () -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("extracted", v.extracted());
                    m.put(
                            "found_by",
                            v.method() == null ? null : v.method().name().toLowerCase());
                    m.put("span", span == null ? null : java.util.List.of(span[0], span[1]));
                    m.put("candidate", v.candidate());
                    m.put("reference", v.reference());
                    m.put("correct", v.correct());
                    m.put("reason", v.reason());
                    return m;
                },
                out -> {
                    out.println("extracted:  "
                            + (v.extracted() == null
                                    ? "(none)"
                                    : v.extracted() + "   (found by "
                                            + v.method().description() + ")"));
                    if (span != null) {
                        out.println("span:       characters " + span[0] + "-" + span[1] + " of " + modelText.length()
                                + ": ..." + context(modelText, span) + "...");
                    }
                    out.println("candidate:  " + (v.candidate() == null ? "(none)" : v.candidate()));
                    out.println("reference:  " + v.reference());
                    out.println(CheckIo.verdict(v.correct(), v.reason()));
                });
    }

    /**
     * Where the extracted answer stands in the text (its last occurrence, as every extraction rule reads from the
     * end), or null where the rule rewrote it (boxes joined into one list, a number's thousands separators dropped).
     */
    static int[] span(String text, String extracted) {
        int at = extracted == null || extracted.isEmpty() ? -1 : text.lastIndexOf(extracted);
        return at < 0 ? null : new int[] {at, at + extracted.length()};
    }

    /** The span with up to 30 characters either side, on one line. */
    private static String context(String text, int[] span) {
        String s = text.substring(Math.max(0, span[0] - 30), Math.min(text.length(), span[1] + 30));
        return s.replace('\n', ' ');
    }
}
