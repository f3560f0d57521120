package org.pettingllms.envs.math;

import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.ItemLookup;
import org.pettingllms.envs.math.MathRows.MathItem;

/**
 * A policy that knows the answers (evaluation without a model): it finds the problem by its question in the
 * prompt and answers the reference, boxed by the reasoner and printed by the tool's program. With
 * {@code wrong}, it answers a number that is not the reference. A checker or environment that scores this
 * oracle below 100% (or the wrong one above 0%) is broken.
 */
public final class MathOracle implements TextPolicy {
    private final List<MathItem> items;
    private final boolean wrong;

    public MathOracle(List<MathItem> items, boolean wrong) {
        this.items = List.copyOf(items);
        this.wrong = wrong;
    }

    @Override
    public String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        MathItem item = ItemLookup.in(text, items, MathItem::question);
        if (item == null) {
            return "I do not know this problem.";
        }
        String answer = wrong ? wrongAnswer(item.answer()) : item.answer();
        boolean tool = text.contains(MathPrompts.TOOL_SYSTEM)
                || text.contains("Write a Python program")
                || text.contains("write a program")
                || text.startsWith("math-v1 " + MathTask.TOOL + "\n");
        if (tool) {
            return "```python\nprint(" + pythonString(answer) + ")\n```";
        }
        return "Working through the problem gives the result.\n\nThe final answer is \\boxed{" + answer + "}";
    }

    static String wrongAnswer(String reference) {
        return AnswerChecker.equivalent("-987654321", reference) ? "-987654320" : "-987654321";
    }

    private static String pythonString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
    }
}
