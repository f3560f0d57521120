package org.pettingllms.envs.math;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;
import org.pettingllms.envs.math.WordProblems.Step;
import org.pettingllms.envs.math.WordProblems.WordProblem;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * Warm-up demonstrations of generated word problems, deliberately imperfect. The tool's program reads each hard
 * wording right with probability {@link WordProblems#READ_RIGHT} (and a moved step's order likewise), so most
 * demonstrated programs compute a wrong answer, each in its own places. The reasoner, shown what that program
 * printed, adopts it with probability {@code adopt} whatever it is (it cannot tell a right one from a wrong one
 * without working it out), and otherwise works the problem out alone: one equation per operation, the wordings
 * read right, with an arithmetic slip (one result off by a digit) in a {@code noise} fraction of them. Alone, the
 * reasoner's weakness is arithmetic on three- and four-digit numbers, which the tool's program does exactly.
 */
public final class WordProblemDemonstrations {
    private WordProblemDemonstrations() {}

    static List<Demo> of(MathTask task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        WordProblem wp = WordProblems.of(problem.seed());
        List<Demo> out = new ArrayList<>();
        MathState state = task.initialState(problem);
        for (String role : task.roles()) {
            Prompt prompt = task.prompt(state, role, 0, style);
            if (role.equals(MathTask.TOOL)) {
                boolean[] misread = new boolean[wp.steps().size()];
                for (int i = 0; i < misread.length; i++) {
                    misread[i] = rng.nextDouble() >= WordProblems.READ_RIGHT;
                }
                boolean writtenOrder = wp.moved() && rng.nextDouble() >= WordProblems.READ_RIGHT;
                String program = WordProblems.program(wp, misread, writtenOrder);
                out.add(new Demo(role, prompt, style == PromptStyle.CHAT ? CodeBlocks.fence(program) : program));
                long printed = WordProblems.output(wp, misread, writtenOrder);
                state = task.toolOutput(state, program, printed + "\n", "").next();
                continue;
            }
            boolean adopt =
                    state.tool() != null && state.tool().answer() != null && rng.nextDouble() < settings.adopt();
            out.add(new Demo(
                    role, prompt, adopt ? boxed(state.tool().answer()) : workedOut(wp, settings.noise(), rng)));
        }
        return out;
    }

    public static String boxed(String answer) {
        return "\\boxed{" + answer + "}";
    }

    /**
     * The reasoner's own solution: an equation per operation (two for packs and boxes: the product, then the sum),
     * in the order the steps happen, and the boxed result. With probability {@code noise} one equation's result is
     * off by one digit, and the later equations carry the slip on.
     */
    public static String workedOut(WordProblem p, double noise, SplittableRandom rng) {
        int equations = 0;
        for (Step s : p.steps()) {
            equations += products(s) ? 2 : 1;
        }
        int slip = rng.nextDouble() < noise ? rng.nextInt(equations) : -1;
        StringBuilder sb = new StringBuilder();
        long x = p.start();
        int k = 0;
        for (Step s : p.steps()) {
            long operand = s.a();
            if (products(s)) {
                long product = s.a() * s.b();
                operand = k++ == slip ? slipped(product, rng) : product;
                sb.append(s.a())
                        .append('*')
                        .append(s.b())
                        .append('=')
                        .append(operand)
                        .append('\n');
            }
            String left = switch (s.kind()) {
                case FIND, RECEIVE, BUY_PACKS -> x + "+" + operand;
                case GIVE, LOSE, SELL_BOXES -> x + "-" + operand;
                case DOUBLE -> x + "*2";
                case TRIPLE -> x + "*3";
                case SHARE -> x + "/" + (s.a() + 1);
            };
            long result = switch (s.kind()) {
                case FIND, RECEIVE, BUY_PACKS -> x + operand;
                case GIVE, LOSE, SELL_BOXES -> x - operand;
                case DOUBLE -> x * 2;
                case TRIPLE -> x * 3;
                case SHARE -> Math.floorDiv(x, s.a() + 1);
            };
            x = k++ == slip ? slipped(result, rng) : result;
            sb.append(left).append('=').append(x).append('\n');
        }
        return sb.append(boxed(Long.toString(x))).toString();
    }

    private static boolean products(Step s) {
        return s.kind() == WordProblems.Kind.BUY_PACKS || s.kind() == WordProblems.Kind.SELL_BOXES;
    }

    /** {@code v} with one of its digits changed. */
    private static long slipped(long v, SplittableRandom rng) {
        long magnitude = Math.abs(v);
        int digits = Long.toString(Math.max(1, magnitude)).length();
        long place = (long) Math.pow(10, rng.nextInt(digits));
        long digit = (magnitude / place) % 10;
        long other = (digit + 1 + rng.nextInt(9)) % 10;
        return v + Long.signum(v == 0 ? 1 : v) * (other - digit) * place;
    }
}
