package org.pettingllms.envs.math;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Answer checks per second (extraction and comparison of a whole model text) for each kind of answer, one thread:
 * plain numbers must run at thousands per second so that the checker never slows the math rollouts; symbolic
 * answers go through the computer-algebra system and are slower.
 */
public final class AnswerBench {
    /** One kind of answer: a model text and its reference for the i-th check (every check a new pair). */
    private record Kind(String name, IntFunction<String[]> pair) {}

    private static final List<Kind> KINDS = List.of(
            new Kind("plain_number", i -> new String[] {"So in total she has " + i + " apples.\n#### " + i, "" + i}),
            new Kind("boxed_fraction", i -> new String[] {
                "Hence the ratio is $\\boxed{\\dfrac{" + i + "}{" + (i + 1) + "}}$.",
                "\\frac{" + 2 * i + "}{" + (2 * i + 2) + "}"
            }),
            new Kind(
                    "tuple", i -> new String[] {"The point is \\boxed{(" + i + ", \\frac{1}{2})}", "(" + i + ", 0.5)"}),
            new Kind("relation", i -> new String[] {"\\boxed{x \\geq " + i + "}", "[" + i + ", \\infty)"}),
            new Kind("symbolic", i -> new String[] {"\\boxed{(x+" + i + ")^2}", "x^2+" + 2 * i + "x+" + i * i}),
            new Kind("plain_fraction", i -> new String[] {
                "The final answer is $\\boxed{-" + i + "/" + (i + 1) + "}$. I hope it is correct.",
                "-\\frac{" + i + "}{" + (i + 1) + "}"
            }),
            new Kind("thousands", i -> new String[] {
                "The final answer is $\\boxed{" + (1000 + i) / 1000 + "{,}" + String.format("%03d", (1000 + i) % 1000)
                        + "}$.",
                "" + (1000 + i)
            }),
            new Kind("closing_sentence", i -> new String[] {
                "Final Answer: The largest $n$ is " + i + ". I hope it is correct.<|im_end|>\n<|im_start|>user", "" + i
            }),
            new Kind("chain", i -> new String[] {"$x = " + i + " + 1 = " + (i + 1) + "$", "" + (i + 1)}),
            new Kind("rounded_decimal", i -> new String[] {
                "\\boxed{" + String.format(java.util.Locale.ROOT, "%.5g", 1.0 / (i % 97 + 3)) + "}",
                "\\frac{1}{" + (i % 97 + 3) + "}"
            }),
            new Kind("linear_relation", i -> new String[] {"\\boxed{-x > -" + i + "}", "x < " + i}),
            new Kind("set_as_tuple", i -> new String[] {
                "\\boxed{(" + i + ", " + (i + 1) + ", " + (i + 2) + ")}",
                "\\{" + (i + 2) + ", " + i + ", " + (i + 1) + "\\}"
            }),
            new Kind("percent_in_text", i -> new String[] {
                "The chance is " + i + ".5%.",
                new java.math.BigDecimal(i + ".5").movePointLeft(2).toPlainString()
            }),
            new Kind("decimal_comma", i -> new String[] {"Das Ergebnis ist " + i + ",25.", i + ".25"}),
            new Kind("doubled_backslash", i -> new String[] {
                "{\"answer\": \"$\\\\frac{" + i + "}{" + (i + 1) + "}$\"}", "\\frac{" + i + "}{" + (i + 1) + "}"
            }),
            new Kind("phrase_after_box", i -> new String[] {
                "First $\\boxed{" + i + "}$, then $\\boxed{" + (i + 1) + "}$.\nThe final answer is $" + (2 * i + 1)
                        + "$. I hope it is correct.",
                "" + (2 * i + 1)
            }),
            new Kind("concluding_sentence", i -> new String[] {
                "Each row holds $x = 4$ seats. Therefore, the hall has " + 4 * i + " seats in all.", "" + 4 * i
            }),
            new Kind("named_ratio", i -> new String[] {"Hence $\\boxed{AE : EC = " + i + " : 7}$.", 2 * i + ":14"}));

    private AnswerBench() {}

    /** Checks each kind for about {@code seconds} after a warm-up; checks per second and microseconds per check. */
    public static Map<String, Object> run(double seconds) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Kind k : KINDS) {
            measure(k, Math.min(0.5, seconds / 4)); // warm-up: JIT, the algebra engine's first use
            Rate rate = measure(k, seconds);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("checks_per_second", Math.round(rate.perSecond()));
            m.put("us_per_check", Math.round(1e6 / rate.perSecond()));
            m.put("checks", rate.checks());
            out.put(k.name(), m);
        }
        return out;
    }

    /** Checks per second over a measurement of {@code checks} checks. */
    private record Rate(double perSecond, long checks) {}

    private static Rate measure(Kind k, double seconds) {
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        int n = 0;
        while (System.nanoTime() < end) {
            String[] p = k.pair().apply(n + 2);
            if (!AnswerChecker.isCorrect(p[0], p[1])) {
                throw new IllegalStateException("bench case judged wrong: " + p[0] + " vs " + p[1]);
            }
            n++;
        }
        return new Rate(n / ((System.nanoTime() - start) / 1e9), n);
    }
}
