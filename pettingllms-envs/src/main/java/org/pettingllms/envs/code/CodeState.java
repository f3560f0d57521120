package org.pettingllms.envs.code;

import java.util.List;
import org.pettingllms.envs.code.CodeItem.TestCase;

/**
 * The state of a code episode.
 *
 * @param program    the coder's latest program, or null before its first
 * @param tests      the tester's latest tests (empty before its first)
 * @param mismatches the latest program's failures on the tester's tests, shown to both roles next turn
 * @param passRatio  the latest program's ground-truth pass ratio
 */
public record CodeState(
        CodeItem item, String program, List<TestCase> tests, List<CodeRunner.Outcome> mismatches, double passRatio) {
    public CodeState {
        tests = List.copyOf(tests);
        mismatches = List.copyOf(mismatches);
    }

    static CodeState start(CodeItem item) {
        return new CodeState(item, null, List.of(), List.of(), 0);
    }

    public boolean success() {
        return passRatio == 1.0;
    }
}
