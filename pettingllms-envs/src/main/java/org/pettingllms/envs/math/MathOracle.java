package org.pettingllms.envs.math;

import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;
import org.pettingllms.envs.data.ItemOracle;
import org.pettingllms.envs.math.MathRows.MathItem;

/**
 * A policy that knows the answers (evaluation without a model): it finds the problem by its question in the
 * prompt and answers the reference, boxed by the reasoner and printed by the tool's program. With
 * {@code wrong}, it answers a number that is not the reference. A checker or environment that scores this
 * oracle below 100% (or the wrong one above 0%) is broken.
 */
public final class MathOracle extends ItemOracle<MathItem> {
    public MathOracle(List<MathItem> items, boolean wrong) {
        super(items, wrong, MathItem::question);
    }

    @Override
    protected String answer(MathItem item, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        String answer = wrong() ? wrongAnswer(item.answer()) : item.answer();
        boolean tool = text.contains(MathPrompts.TOOL_SYSTEM)
                || text.contains("Write a Python program")
                || text.contains("write a program")
                || CompactPrompts.isFor(text, "math-v1", MathTask.TOOL);
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
