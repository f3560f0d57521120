package org.pettingllms.envs.data;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.ScriptedPlay;

/**
 * What the dataset tasks share: a team and its main role alone ({@link TeamTask}), problems from rows of type {@code T} (read from files or generated, {@link Items}), an
 * episode's first state made from its row, a prompt for a checked role in either style, and a scripted team made of
 * the task's oracle.
 */
public abstract class DatasetTask<S, T> extends TeamTask<S> implements ScriptedPlay {
    private final Items<T> items;
    private final Function<T, S> start;

    /**
     * @param team     the multi-agent line-up, in turn order
     * @param mainRole the role whose answer decides success, which the single agent ({@code roles} of it alone) plays
     * @param start    an episode's first state, from its row
     */
    protected DatasetTask(
            List<String> roles,
            List<String> team,
            String mainRole,
            int maxTurns,
            Items<T> items,
            Function<T, S> start) {
        super(roles, team, mainRole, maxTurns);
        this.items = items;
        this.start = start;
    }

    @Override
    public final ProblemSource problems(long seed) {
        return items.problems(id(), seed);
    }

    @Override
    public final S initialState(Problem problem) {
        return start.apply(row(problem));
    }

    /** The role checked, then the task's compact prompt ({@link PromptStyle#COMPACT}) or its chat prompt. */
    @Override
    public final Prompt prompt(S state, String role, int turn, PromptStyle style) {
        checkRole(role);
        return style == PromptStyle.COMPACT ? compactPrompt(state, role, turn) : chatPrompt(state, role, turn);
    }

    /** What {@code role} (a role of the task) sees at {@code turn}, in the compact style. */
    protected abstract Prompt compactPrompt(S state, String role, int turn);

    /** What {@code role} (a role of the task) sees at {@code turn}, in the chat style. */
    protected abstract Prompt chatPrompt(S state, String role, int turn);

    /** Where the rows come from. */
    protected final Items<T> items() {
        return items;
    }

    /** The dataset row of a problem. */
    protected final T row(Problem problem) {
        return items.item(problem);
    }

    /** The oracle that knows the references of {@code problems}, right with probability {@code skill}. */
    @Override
    public final TextPolicy scripted(double skill, List<Problem> problems) {
        List<T> items = problems.stream().map(this::row).toList();
        return TextPolicy.mix(oracle(items, false), oracle(items, true), skill);
    }

    /** The policy that answers the references of {@code items} (or, {@code wrong}, never does). */
    protected abstract TextPolicy oracle(List<T> items, boolean wrong);

    /**
     * Warm-up demonstrations from the oracle, deliberately imperfect: its answers at skill {@code 1 - noise} over the
     * first {@code settings.turns()} turns.
     */
    protected final List<Demonstrations.Demo> oracleDemonstrations(
            Problem problem, PromptStyle style, Demonstrations.Settings settings, SplittableRandom rng) {
        return Demonstrations.fromScripted(
                this, scripted(1 - settings.noise(), List.of(problem)), problem, style, settings.turns(), rng);
    }

    protected final String checkRole(String role) {
        if (!roles().contains(role)) {
            throw new IllegalArgumentException("unknown role '" + role + "' for " + id() + "; roles are " + roles());
        }
        return role;
    }
}
