package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * Supervised warm-up data from the solvers: for a problem, each role's prompt at the first turn and the solver's
 * answer. With probability {@code noise} an answer is deliberately imperfect (truncated, or random moves), so a
 * model trained on them is weak but not hopeless, as the paper's base models are.
 */
public final class Demonstrations {
    private Demonstrations() {
    }

    /** One (prompt, answer) pair for a role. */
    public record Demo(String role, Prompt prompt, String answer) {
    }

    public static <B, A> List<Demo> of(PlanningTask<B, A> task, Problem problem, PromptStyle style, double noise,
                                       SplittableRandom rng) {
        Game<B, A> game = task.game();
        List<Demo> out = new ArrayList<>();
        PlanningState<B> state = task.initialState(problem);
        for (String role : task.roles()) {
            Prompt prompt = task.prompt(state, role, 0, style);
            String answer = game.format(answer(game, state.board(), noise, rng), style);
            out.add(new Demo(role, prompt, answer));
            state = task.step(state, role, Completion.ofText(answer)).next();
        }
        return out;
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
