package org.pettingllms.testkit;

import java.util.List;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;

/**
 * A hand-checkable two-role task: each answer is an integer added to a counter. Local reward = the number added;
 * team reward = the number added by role {@code b}. Done when the counter reaches the problem's seed (the target).
 * A non-integer answer costs 1 and adds nothing.
 */
final class CounterTask implements Task<CounterTask.State> {
    record State(String problem, long target, int value, String history) {}

    private final List<String> roles;
    private final int maxTurns;

    CounterTask(List<String> roles, int maxTurns) {
        this.roles = roles;
        this.maxTurns = maxTurns;
    }

    @Override
    public String id() {
        return "counter-v1";
    }

    @Override
    public List<String> roles() {
        return roles;
    }

    @Override
    public int maxTurns() {
        return maxTurns;
    }

    @Override
    public State initialState(Problem problem) {
        return new State(problem.id(), problem.seed(), 0, "");
    }

    @Override
    public Prompt prompt(State s, String role, int turn, PromptStyle style) {
        return Prompt.compact(
                s.problem() + " " + role + " t" + turn + " value=" + s.value() + " history=" + s.history());
    }

    @Override
    public Transition<State> step(State s, String role, Completion c) {
        int add;
        try {
            add = Integer.parseInt(c.text().strip());
        } catch (NumberFormatException e) {
            return new Transition<>(s, new RewardParts(-1, 0, 0), false, false, StepOutcome.UNPARSEABLE, "bad");
        }
        State next = new State(s.problem(), s.target(), s.value() + add, s.history() + role + "+" + add + ";");
        boolean done = next.value() >= s.target();
        double team = role.equals("b") ? add : 0;
        return new Transition<>(
                next, new RewardParts(add, team, 0), done, done, done ? StepOutcome.SOLVED : StepOutcome.OK, "+" + add);
    }
}
