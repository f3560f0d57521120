package org.pettingllms.envs.planning;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * A built-in scripted team for the planning games: it reads the board from the prompt, asks the game's solver,
 * and answers the solution with probability {@code skill}; otherwise it makes a typical mistake (a truncated
 * solution or random moves). The plan role adopts a tool proposal that reached the goal in simulation. With a
 * program-writing tool, the tool writes the game's correct program with probability {@code skill} and a flawed
 * one otherwise, and the plan role checks the printed answer on the board it reads before adopting it. Used by the
 * demo rollout and as a baseline; like a model, it only sees the prompt.
 */
public final class SolverPolicy<B, A> implements TextPolicy {
    private final Game<B, A> game;
    private final double skill;
    private final boolean programs;

    public SolverPolicy(Game<B, A> game, double skill) {
        this(game, skill, false);
    }

    /** @param programs the tool role writes programs ({@link PlanningTask.ToolMode#PROGRAM}) */
    public SolverPolicy(Game<B, A> game, double skill, boolean programs) {
        if (skill < 0 || skill > 1) {
            throw new IllegalArgumentException("skill must be in [0, 1], got " + skill);
        }
        this.game = game;
        this.skill = skill;
        this.programs = programs;
    }

    @Override
    public String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        // a picture shows the board in place of its rows: read it as the model must, from the pixels
        Optional<String> boardText = prompt.images().isEmpty()
                ? PromptBoards.board(text, prompt.style())
                : BoardPicture.read(prompt.images().get(0), game.colours());
        if (boardText.isEmpty()) {
            return "?";
        }
        B board;
        try {
            board = game.fromText(boardText.get());
        } catch (IllegalArgumentException e) {
            return "?"; // not a board this policy understands: answer like a confused model
        }
        boolean plan = PromptBoards.isPlanRole(text, prompt.style());
        if (programs && !plan) {
            boolean right = rng.nextDouble() < skill;
            List<ToolProgram<B>> pool = game.toolPrograms().stream()
                    .filter(p -> p.correct() == right)
                    .toList();
            if (pool.isEmpty()) {
                pool = game.toolPrograms();
            }
            return pool.get(rng.nextInt(pool.size())).answer(prompt.style());
        }
        Optional<String> proposal = programs
                ? PromptBoards.toolOutput(text)
                        .filter(out -> game.parse(out)
                                .map(a -> game.apply(board, a).success())
                                .orElse(false))
                : PromptBoards.successfulProposal(text);
        if (plan && proposal.isPresent() && rng.nextDouble() < 0.9) {
            return proposal.get();
        }
        Optional<A> solution = game.solve(board);
        A action;
        if (solution.isPresent() && rng.nextDouble() < skill) {
            action = solution.get();
        } else if (solution.isPresent() && rng.nextBoolean()) {
            int len = game.length(solution.get());
            action = game.truncate(solution.get(), len <= 1 ? len : 1 + rng.nextInt(len - 1));
        } else {
            action = game.randomAction(board, rng);
        }
        if (game.length(action) == 0) {
            action = game.randomAction(board, rng);
        }
        return game.format(action, prompt.style());
    }
}
