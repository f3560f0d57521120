package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.util.Brackets;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.data.ItemOracle;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * A policy that knows the solutions (evaluation without a model): the coder answers the dataset's reference
 * solution, the tester the first ground-truth tests (for HumanEval, the harness's {@code assert candidate(...)
 * == ...} lines as calls). With {@code wrong}, the coder answers a program that prints the wrong thing. Compact
 * prompts get compact answers: the function without a fence, the tests one {@code call==expected} per line.
 */
public final class CodeOracle extends ItemOracle<CodeItem> {
    private static final Pattern ASSERT = Pattern.compile("^\\s*assert\\s+(not\\s+)?candidate\\s*\\(");

    public CodeOracle(List<CodeItem> items, boolean wrong) {
        super(items, wrong, CodeItem::question);
    }

    @Override
    protected String answer(CodeItem item, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        boolean compact = prompt.style() == PromptStyle.COMPACT;
        boolean tester = text.contains(CodePrompts.TESTER_SYSTEM)
                || text.contains("Write test cases")
                || compact && text.contains(" " + CodeTask.TESTER + "\n");
        if (tester) {
            return compact && item.functional() != null
                    ? TestBlocks.formatCalls(tests(item))
                    : TestBlocks.format(tests(item));
        }
        String program = wrong()
                ? item.functional() != null
                        ? "def " + item.functional().entryPoint() + "(*args, **kwargs):\n    return 'wrong answer'\n"
                        : "print('wrong answer')\n"
                : item.solution() != null ? item.solution() : "print('no reference solution')\n";
        return compact ? program : CodeBlocks.fence(program);
    }

    /** The first ground-truth tests as tester tests; for function problems, the harness's asserted calls. */
    static List<TestCase> tests(CodeItem item) {
        if (item.functional() == null || !item.tests().isEmpty()) {
            return item.tests().subList(0, Math.min(3, item.tests().size()));
        }
        String entry = item.functional().entryPoint();
        List<TestCase> out = new ArrayList<>();
        for (String line : item.functional().testCode().split("\n")) {
            Matcher m = ASSERT.matcher(line);
            if (!m.find() || out.size() >= 3) {
                continue;
            }
            String rest = line.substring(m.end());
            int close = closing(rest);
            if (close < 0) {
                continue; // the call spans several lines
            }
            String call = entry + "(" + rest.substring(0, close) + ")";
            String tail = rest.substring(close + 1).strip();
            String expected;
            if (m.group(1) != null) {
                expected = "False";
            } else if (tail.isEmpty() || tail.startsWith(",")) {
                expected = "True";
            } else if (tail.startsWith("==")) {
                expected = topLevelBeforeComma(tail.substring(2)).strip().replace("candidate", entry);
            } else {
                continue;
            }
            out.add(new TestCase(call, expected));
        }
        return out;
    }

    /** Index of the parenthesis closing an already open one, or -1 (also when a ] or } closes it). */
    private static int closing(String s) {
        int close = Brackets.CODE.closingOpenBefore(s, 0);
        return close >= 0 && s.charAt(close) == ')' ? close : -1;
    }

    /** The expression before an assert's message: text up to the first comma outside brackets and strings. */
    private static String topLevelBeforeComma(String s) {
        int comma = Brackets.CODE.indexOfTopLevel(s, ",", 0);
        return comma < 0 ? s : s.substring(0, comma);
    }
}
