package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.code.FunctionTasks.FunctionTask;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * Warm-up demonstrations of generated function tasks, deliberately imperfect. The coder's function reads each hard
 * wording right with probability {@link FunctionTasks#READ_RIGHT}, so most demonstrated functions are wrong, each
 * in its own places. The tester writes three calls on short lists with the values it expects, reading the wordings
 * with its own misreadings (drawn independently of the coder's), and in a {@code noise} fraction of its tests the
 * expected value is off by one or two (a slip of mental arithmetic). Where the tester's tests catch the coder's
 * function, the episode goes on, and the demonstrations go on too: a second turn in which both roles see the failed
 * calls and answer afresh (the coder's new function drawn as the first was: warm-up does not teach fixing, which
 * is left to reinforcement learning). No program runs: what a function returns is computed by the generator.
 * ({@code adopt} has no meaning here.)
 */
final class FunctionTaskDemonstrations {
    private static final int TESTER_TESTS = 3;

    private FunctionTaskDemonstrations() {}

    static List<Demo> of(CodeTask task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        FunctionTask ft = FunctionTasks.of(problem.seed());
        List<Demo> out = new ArrayList<>();
        CodeState state = task.initialState(problem);
        boolean[] coderReading = null;
        for (int turn = 0; turn < Math.min(2, task.maxTurns()); turn++) {
            for (String role : task.roles()) {
                var prompt = task.prompt(state, role, turn, style);
                if (role.equals(CodeTask.CODER)) {
                    coderReading = reading(ft, rng);
                    String program = ft.program(coderReading);
                    out.add(new Demo(role, prompt, style == PromptStyle.CHAT ? CodeBlocks.fence(program) : program));
                    state = new CodeState(
                            state.item(),
                            program,
                            state.tests(),
                            outcomes(ft, coderReading, state.tests()),
                            state.passRatio());
                    continue;
                }
                List<TestCase> tests = testerTests(ft, settings.noise(), rng);
                out.add(new Demo(
                        role,
                        prompt,
                        style == PromptStyle.CHAT ? TestBlocks.format(tests) : TestBlocks.formatCalls(tests)));
                state = new CodeState(
                        state.item(), state.program(), tests, outcomes(ft, coderReading, tests), state.passRatio());
            }
            if (task.roles().size() == 1 || state.mismatches().isEmpty()) {
                break; // the episode ends: one role, or the function passes the tester's tests
            }
        }
        return out;
    }

    /** Each hard wording misread with probability {@code 1 - READ_RIGHT}. */
    static boolean[] reading(FunctionTask ft, SplittableRandom rng) {
        boolean[] misread = new boolean[ft.parts()];
        for (int i = 0; i < misread.length; i++) {
            misread[i] = ft.hard(i) && rng.nextDouble() >= FunctionTasks.READ_RIGHT;
        }
        return misread;
    }

    /**
     * Three calls on lists of 3-5 numbers in 0-12 (a filter's number put in half of the time), as the tester reads
     * the task.
     */
    static List<TestCase> testerTests(FunctionTask ft, double noise, SplittableRandom rng) {
        boolean[] misread = reading(ft, rng);
        List<TestCase> tests = new ArrayList<>();
        for (int i = 0; i < TESTER_TESTS; i++) {
            List<Integer> xs = new ArrayList<>();
            int n = 3 + rng.nextInt(3);
            for (int j = 0; j < n; j++) {
                xs.add(rng.nextInt(13));
            }
            for (FunctionTasks.Filter f : ft.filters()) {
                if (f.k() > 0 && f.k() <= 20 && rng.nextBoolean()) {
                    xs.set(rng.nextInt(n), f.k());
                }
            }
            long v = ft.value(xs, misread);
            if (rng.nextDouble() < noise) {
                long slip = 1 + rng.nextInt(2);
                v = v >= slip && rng.nextBoolean() ? v - slip : v + slip;
            }
            tests.add(new TestCase(FunctionTasks.call(xs), Long.toString(v)));
        }
        return tests;
    }

    /**
     * What the function with {@code reading} does on {@code tests} (failures only), computed without a sandbox. The
     * coder acts first in every turn, so the tester's tests always meet a function.
     */
    private static List<CodeRunner.Outcome> outcomes(FunctionTask ft, boolean[] reading, List<TestCase> tests) {
        List<CodeRunner.Outcome> failed = new ArrayList<>();
        for (TestCase t : tests) {
            long actual = ft.value(FunctionTasks.parseCall(t.input()), reading);
            if (!Long.toString(actual).equals(t.output().strip())) {
                failed.add(new CodeRunner.Outcome(t, false, Long.toString(actual)));
            }
        }
        return failed;
    }
}
