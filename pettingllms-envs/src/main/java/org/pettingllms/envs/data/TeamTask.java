package org.pettingllms.envs.data;

import java.util.List;
import org.pettingllms.core.task.Task;

/**
 * What a task with a team and a single-agent line-up shares: the roles checked against the two line-ups (the team, or
 * its main role alone), the main role, and the turn cap, where the single agent is given the team's model calls.
 */
public abstract class TeamTask<S> implements Task<S> {
    private final List<String> roles;
    private final String mainRole;
    private final int maxTurns;

    /**
     * @param team     the multi-agent line-up, in turn order
     * @param mainRole the role whose answer decides success, which the single agent ({@code roles} of it alone) plays
     * @param maxTurns the turn cap ({@link #teamCalls} for a single agent with the team's calls)
     */
    protected TeamTask(List<String> roles, List<String> team, String mainRole, int maxTurns) {
        List<List<String>> lineUps = List.of(team, List.of(mainRole));
        if (!lineUps.contains(roles)) {
            throw new IllegalArgumentException(id() + " has roles "
                    + String.join(" or ", lineUps.stream().map(Object::toString).toList()) + ", got " + roles);
        }
        if (maxTurns < 1) {
            throw new IllegalArgumentException("maxTurns must be >= 1, got " + maxTurns);
        }
        this.roles = List.copyOf(roles);
        this.mainRole = mainRole;
        this.maxTurns = maxTurns;
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
}
