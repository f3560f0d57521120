package org.pettingllms.cli.toy;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.Task;

/**
 * A new task as a user would add one, in its own package: an {@code adder} proposes a + b, a {@code checker} sees
 * the proposal and gives the final answer (success: it equals a + b). It brings its own scripted team and nothing
 * else; the command line must run it, evaluate it and warm a model up on it without knowing it.
 */
final class SumTask implements Task<SumTask.State>, ScriptedPlay {
    static final String ADDER = "adder";
    static final String CHECKER = "checker";
    private static final Pattern NUMBERS = Pattern.compile("add (\\d+) (\\d+)");

    record State(int a, int b, String proposal) {}

    private final List<String> roles;

    SumTask(List<String> roles) {
        this.roles = List.copyOf(roles);
    }

    @Override
    public String id() {
        return "toy-sum-v1";
    }

    @Override
    public List<String> roles() {
        return roles;
    }

    @Override
    public int maxTurns() {
        return 1;
    }

    @Override
    public State initialState(Problem problem) {
        long s = Math.abs(problem.seed());
        return new State((int) (s % 50), (int) (s / 50 % 50), null);
    }

    @Override
    public Prompt prompt(State s, String role, int turn, PromptStyle style) {
        return Prompt.compact("add " + s.a() + " " + s.b() + (s.proposal() == null ? "" : " adder:" + s.proposal())
                + " " + role + ":");
    }

    @Override
    public Transition<State> step(State s, String role, Completion completion) {
        String answer = completion.text().strip();
        boolean right = answer.equals(String.valueOf(s.a() + s.b()));
        if (role.equals(ADDER)) {
            return new Transition<>(
                    new State(s.a(), s.b(), answer),
                    new RewardParts(right ? 1 : 0, 0, 0),
                    false,
                    false,
                    StepOutcome.OK,
                    "proposed " + answer);
        }
        return new Transition<>(
                s,
                new RewardParts(right ? 1 : 0, right ? 1 : 0, 0),
                true,
                right,
                right ? StepOutcome.SOLVED : StepOutcome.OK,
                "answered " + answer);
    }

    /** Reads a and b from the prompt: right with probability {@code skill}, one too many otherwise. */
    @Override
    public TextPolicy scripted(double skill, List<Problem> problems) {
        return (policy, prompt, rng) -> {
            Matcher m = NUMBERS.matcher(prompt.text());
            if (!m.find()) {
                return "?";
            }
            int sum = Integer.parseInt(m.group(1)) + Integer.parseInt(m.group(2));
            return String.valueOf(rng.nextDouble() < skill ? sum : sum + 1);
        };
    }
}
