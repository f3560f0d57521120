package org.pettingllms.envs.verilog;

import java.util.List;

/**
 * The state of a hardware design episode.
 *
 * @param design     the designer's latest module, or null before its first
 * @param problem    why the latest design did not compile or run (the simulator's first message), or empty
 * @param tests      the tester's latest vectors (empty before its first)
 * @param mismatches the latest design's failures on the tester's vectors, shown to both roles next turn
 * @param hiddenPass the latest design's share of the hidden bench's steps right
 * @param answerPass the same share for the team's answer: the latest design that compiled and ran (a revision the
 *                   simulator refuses does not replace the design before it, as a hardware team keeps the last
 *                   design that built)
 */
public record VerilogState(
        VerilogItem item,
        String design,
        String problem,
        List<Vectors.Vector> tests,
        List<Judge.Mismatch> mismatches,
        double hiddenPass,
        double answerPass) {
    public VerilogState {
        tests = List.copyOf(tests);
        mismatches = List.copyOf(mismatches);
    }

    static VerilogState start(VerilogItem item) {
        return new VerilogState(item, null, "", List.of(), List.of(), 0, 0);
    }

    /** Whether the team's answer is equivalent to the reference. */
    public boolean success() {
        return answerPass == 1.0;
    }
}
