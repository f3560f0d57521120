package org.pettingllms.core.task;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * A task that offers supervised demonstrations (the warm-up data of {@code sft}): for a problem, a (prompt, answer)
 * pair per role, deliberately imperfect at the rate asked, so that a model trained on them is weak but not hopeless.
 */
public interface Demonstrations {
    /** One role's prompt and the answer to learn. */
    record Demo(String role, Prompt prompt, String answer) {}

    /**
     * @param noise fraction of deliberately imperfect answers
     * @param adopt how often a later role's answer copies an earlier role's (a planner adopting the tool's output)
     * @param withholdCorrect demonstrate no correct solver where the task has a catalog of solver programs (only its
     *     flawed ones, each wrong in one place), so that a correct program can only be found by reinforcement learning
     */
    record Settings(double noise, double adopt, boolean withholdCorrect) {
        public Settings {
            if (noise < 0 || noise > 1 || adopt < 0 || adopt > 1) {
                throw new IllegalArgumentException("noise and adopt must be in [0, 1], got " + noise + ", " + adopt);
            }
        }

        public Settings(double noise, double adopt) {
            this(noise, adopt, false);
        }
    }

    List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng);

    /**
     * The demonstrations of a task: its own, else its scripted team's first-turn answers (at skill {@code 1 -
     * noise}, each role answering the state the earlier roles' answers made); empty when it has neither.
     */
    static List<Demo> of(Task<?> task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (task instanceof Demonstrations d) {
            return d.demonstrations(problem, style, settings, rng);
        }
        if (task instanceof ScriptedPlay play) {
            return fromScripted(task, play.scripted(1 - settings.noise(), List.of(problem)), problem, style, rng);
        }
        return List.of();
    }

    /** Whether {@link #of} can make demonstrations for {@code task}. */
    static boolean available(Task<?> task) {
        return task instanceof Demonstrations || task instanceof ScriptedPlay;
    }

    /** Each role's first-turn prompt and the policy's answer, in turn order. */
    static <S> List<Demo> fromScripted(
            Task<S> task, TextPolicy policy, Problem problem, PromptStyle style, SplittableRandom rng) {
        List<Demo> out = new ArrayList<>();
        S state = task.initialState(problem);
        for (String role : task.roles()) {
            Prompt prompt = task.prompt(state, role, 0, style);
            String answer = policy.answer(new PolicyRef("scripted", role), prompt, rng);
            out.add(new Demo(role, prompt, answer));
            var t = task.step(state, role, Completion.ofText(answer));
            if (t.done()) {
                break;
            }
            state = t.next();
        }
        return out;
    }
}
