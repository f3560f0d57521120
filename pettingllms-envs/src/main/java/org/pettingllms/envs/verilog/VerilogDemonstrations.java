package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;

/**
 * Warm-up demonstrations of generated circuits, deliberately imperfect. Each role reads the specification right with
 * probability {@code 1 - noise}, else as one of the problem's wrong designs (drawn per answer, the designer's and the
 * tester's apart): the designer writes that reading's module, the tester writes vectors with that reading's outputs
 * at the steps that tell the reference from the wrong designs ({@link VerilogOracle#steps}, the rest drawn). Where the
 * tester's vectors catch the design, a second turn is demonstrated too: both roles see the failures and answer afresh,
 * drawn as before (the warm-up shows the format, not how to fix: that is left to reinforcement learning). One trusted
 * simulation per problem gives every reading's outputs on the hidden bench ({@link Judge#readings}); no other
 * simulation runs. ({@code adopt} has no meaning here.)
 */
final class VerilogDemonstrations {
    private VerilogDemonstrations() {}

    static List<Demo> of(
            VerilogTask task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        VerilogState state = task.initialState(problem);
        VerilogItem item = state.item();
        List<List<String>> readings = task.judge().readings(item);
        List<BigInteger[]> hidden = Stimulus.hidden(item);
        List<Demo> out = new ArrayList<>();
        int design = 0;
        List<Integer> testSteps = List.of(); // the hidden bench's step of each of the tester's vectors
        for (int turn = 0; turn < Math.min(settings.turns(), task.maxTurns()); turn++) {
            for (String role : task.roles()) {
                var prompt = task.prompt(state, role, turn, style);
                int reading = reading(item, settings.noise(), rng);
                if (role.equals(VerilogTask.DESIGNER)) {
                    design = reading;
                    String text =
                            reading == 0 ? item.reference() : item.mutants().get(reading - 1);
                    out.add(new Demo(
                            role,
                            prompt,
                            style == PromptStyle.COMPACT
                                    ? VerilogPrompts.body(text)
                                    : "```verilog\n" + text.strip() + "\n```"));
                    state = new VerilogState(
                            item,
                            text,
                            "",
                            state.tests(),
                            mismatches(item, state.tests(), testSteps, readings.get(design)),
                            share(readings.get(design), readings.get(0)));
                    continue;
                }
                List<Vectors.Vector> tests = new ArrayList<>();
                List<Integer> kept = new ArrayList<>();
                for (int step : VerilogOracle.steps(item, readings, task.maxTesterTests(), rng)) {
                    for (Vectors.Vector v : VerilogOracle.vectors(item, hidden, List.of(step), readings.get(reading))) {
                        tests.add(v);
                        kept.add(step);
                    }
                }
                testSteps = kept;
                String vectors = Vectors.render(tests, item);
                out.add(new Demo(role, prompt, style == PromptStyle.COMPACT ? vectors : "```\n" + vectors + "```"));
                state = new VerilogState(
                        item,
                        state.design(),
                        "",
                        tests,
                        mismatches(item, tests, testSteps, readings.get(design)),
                        state.hiddenPass());
            }
            if (task.roles().size() == 1 || state.mismatches().isEmpty()) {
                break; // the episode ends: one role, or the design passes the tester's vectors
            }
        }
        return out;
    }

    /** 0 (the reference) with probability {@code 1 - noise}, else one of the wrong designs, 1-based. */
    private static int reading(VerilogItem item, double noise, SplittableRandom rng) {
        return item.mutants().isEmpty() || rng.nextDouble() >= noise
                ? 0
                : 1 + rng.nextInt(item.mutants().size());
    }

    private static double share(List<String> design, List<String> reference) {
        int right = 0;
        for (int i = 0; i < reference.size(); i++) {
            right += reference.get(i).equals(design.get(i)) ? 1 : 0;
        }
        return (double) right / reference.size();
    }

    /** The design's failures on {@code tests}, read from its outputs at their steps of the hidden bench. */
    private static List<Judge.Mismatch> mismatches(
            VerilogItem item, List<Vectors.Vector> tests, List<Integer> steps, List<String> design) {
        List<Judge.Mismatch> out = new ArrayList<>();
        for (int k = 0; k < tests.size(); k++) {
            String printed = design.get(steps.get(k));
            if (!Judge.passes(item, tests.get(k), printed)) {
                out.add(Judge.mismatch(item, tests.get(k), printed));
            }
        }
        return out;
    }
}
