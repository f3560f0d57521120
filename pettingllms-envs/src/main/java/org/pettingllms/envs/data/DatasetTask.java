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
import org.pettingllms.core.task.Task;

/**
 * What the dataset tasks share: two line-ups, the team and its main role alone (the single agent), roles checked
 * against them, the turn cap, problems from rows of type {@code T} (read from files or generated, {@link Items}), an
 * episode's first state made from its row, a prompt for a checked role in either style, and a scripted team made of
 * the task's oracle.
 */
public abstract class DatasetTask<S, T> implements Task<S>, ScriptedPlay {
    private final List<String> roles;
    private final String mainRole;
    private final int maxTurns;
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
        List<List<String>> lineUps = List.of(team, List.of(mainRole));
        if (!lineUps.contains(roles)) {
            throw new IllegalArgumentException(id() + " has roles "
                    + String.join(" or ", lineUps.stream().map(Object::toString).toList()) + ", got " + roles);
        }
        this.roles = List.copyOf(roles);
        this.mainRole = mainRole;
        this.maxTurns = maxTurns;
        this.items = items;
        this.start = start;
    }

    /**
     * The turn cap of a task whose single agent is given the team's model calls: {@code callsPerTurn} replies for
     * each of the team's {@code teamTurns} turns.
     */
    protected static int teamCalls(List<String> roles, int teamTurns, int callsPerTurn) {
        return roles.size() == 1 ? callsPerTurn * teamTurns : teamTurns;
    }

    @Override
    public final List<String> roles() {
        return roles;
    }

    @Override
    public final String mainRole() {
        return mainRole;
    }

    /** Whether the main role plays alone (the single agent). */
    protected final boolean alone() {
        return roles.size() == 1;
    }

    @Override
    public final int maxTurns() {
        return maxTurns;
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
        if (!roles.contains(role)) {
            throw new IllegalArgumentException("unknown role '" + role + "' for " + id() + "; roles are " + roles);
        }
        return role;
    }
}
