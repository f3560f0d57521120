package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;

/**
 * Supervised warm-up data from the solvers: for a problem, each role's prompt at the first turn and the solver's
 * answer. With probability {@code noise} an answer is deliberately imperfect (truncated, or random moves), so a
 * model trained on them is weak but not hopeless, as the paper's base models are.
 *
 * <p>With a program-writing tool, the tool's demonstration is a program drawn from the game's catalog by its
 * weights (mostly flawed ones), and the planner's prompt shows what that program prints. The planner adopts the
 * printed answer with probability {@link #ADOPT} whatever it is (it cannot tell a right one from a wrong one
 * without checking), and otherwise plans alone as above.
 */
public final class SolverDemonstrations {
    private SolverDemonstrations() {}

    /** How often the planner's demonstration copies the tool program's printed answer. */
    public static final double ADOPT = 0.5;

    public static <B, A> List<Demo> of(
            PlanningTask<B, A> task, Problem problem, PromptStyle style, double noise, SplittableRandom rng) {
        return of(task, problem, style, new Settings(noise, ADOPT), rng);
    }

    /**
     * As above, the planner adopting the printed answer with probability {@code settings.adopt()}; with {@code
     * settings.withholdCorrect()} the tool's program is one of the catalog's flawed programs in equal shares (each is
     * wrong in a different place, so every place is right in most of them, and the correct program is a combination
     * no demonstration shows). The episode is demonstrated for up to {@code settings.turns()} turns (it ends early
     * when the planner's move ends it): a later turn's prompts show the board the earlier demonstrated moves left,
     * and each turn's tool program is drawn afresh.
     */
    public static <B, A> List<Demo> of(
            PlanningTask<B, A> task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        Game<B, A> game = task.game();
        boolean programs = task.toolMode() == PlanningTask.ToolMode.PROGRAM;
        List<Demo> out = new ArrayList<>();
        PlanningState<B> state = task.initialState(problem);
        for (int turn = 0; turn < Math.min(settings.turns(), task.maxTurns()); turn++) {
            for (String role : task.roles()) {
                Prompt prompt = task.prompt(state, role, turn, style);
                if (programs && role.equals(PlanningTask.TOOL)) {
                    ToolProgram<B> p = settings.withholdCorrect()
                            ? pickFlawed(game.flawedPrograms(), rng)
                            : pick(game.toolPrograms(), rng);
                    out.add(new Demo(role, prompt, p.answer(style)));
                    state = task.toolOutput(
                                    state, ToolRunner.Result.printed(p.output().apply(state.board())))
                            .next();
                    continue;
                }
                Optional<A> printed = programs && role.equals(PlanningTask.PLAN) && rng.nextDouble() < settings.adopt()
                        ? game.parse(state.proposal())
                        : Optional.empty();
                A action = printed.isPresent() ? printed.get() : answer(game, state.board(), settings.noise(), rng);
                String answer = game.format(action, style);
                out.add(new Demo(role, prompt, answer));
                var t = task.step(state, role, Completion.ofText(answer));
                if (t.done()) {
                    return out;
                }
                state = t.next();
            }
        }
        return out;
    }

    /** A catalog program drawn by weight. */
    static <B> ToolProgram<B> pick(List<ToolProgram<B>> catalog, SplittableRandom rng) {
        double u = rng.nextDouble();
        for (ToolProgram<B> p : catalog) {
            u -= p.weight();
            if (u < 0) {
                return p;
            }
        }
        return catalog.get(catalog.size() - 1);
    }

    /** A flawed catalog program, each with the same chance. */
    static <B> ToolProgram<B> pickFlawed(List<ToolProgram<B>> catalog, SplittableRandom rng) {
        List<ToolProgram<B>> flawed = catalog.stream().filter(p -> !p.correct()).toList();
        return flawed.get(rng.nextInt(flawed.size()));
    }

    private static <B, A> A answer(Game<B, A> game, B board, double noise, SplittableRandom rng) {
        Optional<A> solution = game.solve(board);
        if (solution.isPresent() && rng.nextDouble() >= noise) {
            return solution.get();
        }
        if (solution.isPresent() && game.length(solution.get()) > 1 && rng.nextBoolean()) {
            int len = game.length(solution.get());
            return game.truncate(solution.get(), 1 + rng.nextInt(len - 1));
        }
        return game.randomAction(board, rng);
    }
}
