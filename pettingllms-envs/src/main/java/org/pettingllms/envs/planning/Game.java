package org.pettingllms.envs.planning;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.data.PromptStyle;

/**
 * The rules of one planning game over immutable boards {@code B} and actions {@code A}. {@link PlanningTask}
 * adds the tool + plan workflow on top; a game only knows boards, answers and rewards.
 */
public interface Game<B, A> {
    /** Versioned environment id, e.g. {@code plan-path-v1}. */
    String id();

    /** A solvable instance from a seed (deterministic). */
    B generate(long seed);

    /** The board as text: what prompts show, and what {@link #fromText} reads back (hand-made test boards). */
    String render(B board);

    B fromText(String text);

    /**
     * The action in an answer, or empty when it cannot be parsed. Chat answers are read after the last
     * {@code Actions List} marker, compact answers from their first line. Never throws on model output.
     */
    Optional<A> parse(String answer);

    /** Executes an action: the new board, the reward of the executed moves, and whether the game ended. */
    Outcome<B> apply(B board, A action);

    /** A reference solution from this board, when one exists (solver). */
    Optional<A> solve(B board);

    /** Writes an action as an answer in the given style (demonstrations, scripted policies). */
    String format(A action, PromptStyle style);

    /** A random (usually bad) action, for noisy scripted policies. */
    A randomAction(B board, SplittableRandom rng);

    /** An action that keeps only a prefix of {@code action} (truncated demonstrations), may be empty. */
    A truncate(A action, int keep);

    int length(A action);

    /**
     * The solver programs a program-writing tool is warmed up on (correct and flawed; see {@link ToolProgram}).
     * Empty when the game has none yet: then the tool can only answer directly.
     */
    default List<ToolProgram<B>> toolPrograms() {
        return List.of();
    }

    /**
     * The flawed programs a discovery warm-up shows the tool ({@code sft --withhold-correct}), in equal shares: none
     * is correct. By default the catalog's flawed programs; a game may offer more, e.g. every combination of its
     * programs' wrong places.
     */
    default List<ToolProgram<B>> flawedPrograms() {
        return toolPrograms().stream().filter(p -> !p.correct()).toList();
    }

    /**
     * The places where {@link #flawedPrograms()} are wrong, as text ({@link FlawCombinations#places}): training counts
     * the tool's programs right and wrong at each. Empty when the flawed programs are no combination of places.
     */
    default List<ProgramPlace> flawPlaces() {
        return List.of();
    }

    /**
     * Each board symbol's colour (0xRRGGBB) when the board is shown as a picture ({@link BoardPicture};
     * {@code task.options.view: image}); empty when the game has no picture.
     */
    default Map<Character, Integer> colours() {
        return Map.of();
    }

    /** Penalty of an unparseable answer. */
    default double unparseablePenalty() {
        return -1.0;
    }

    /** Chat style: the rules in a few sentences. */
    String rules();

    /** Chat style: how to write the answer. */
    String answerFormat();

    /** The outcome of executing an action on a board. */
    record Outcome<B>(B board, double reward, boolean anyInvalid, boolean done, boolean success, String summary) {}
}
