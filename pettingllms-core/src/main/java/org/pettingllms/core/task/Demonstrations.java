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
     * @param turns demonstrate up to this many turns of an episode (each role's prompt at a later turn shows what the
     *     earlier turns' answers did), where the task can: a model shown only first-turn prompts may not recognise a
     *     later turn's prompt (a Sudoku board with fills on it) and answer it badly
     * @param habits how often each of a task's habits is demonstrated, where the task has some: a place that an answer
     *     writes the same way on every problem of a kind (a Verilog designer's clock edge and reset level), wrong with
     *     this probability in each episode, the places drawn apart, so that reinforcement learning has one choice to make
     *     that is right on every problem; 0: no habit
     */
    record Settings(double noise, double adopt, boolean withholdCorrect, int turns, double habits) {
        public Settings {
            if (noise < 0 || noise > 1 || adopt < 0 || adopt > 1 || habits < 0 || habits > 1) {
                throw new IllegalArgumentException(
                        "noise, adopt and habits must be in [0, 1], got " + noise + ", " + adopt + ", " + habits);
            }
            if (turns < 1) {
                throw new IllegalArgumentException("turns must be at least 1, got " + turns);
            }
        }

        public Settings(double noise, double adopt, boolean withholdCorrect, int turns) {
            this(noise, adopt, withholdCorrect, turns, 0);
        }

        public Settings(double noise, double adopt, boolean withholdCorrect) {
            this(noise, adopt, withholdCorrect, 1);
        }

        public Settings(double noise, double adopt) {
            this(noise, adopt, false);
        }
    }

    List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng);

    /**
     * The demonstrations of a task: its own, else its scripted team's answers in the first {@code settings.turns()}
     * turns (at skill {@code 1 - noise}, each role answering the state the earlier answers made); empty when it has
     * neither.
     */
    static List<Demo> of(Task<?> task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (task instanceof Demonstrations d) {
            return d.demonstrations(problem, style, settings, rng);
        }
        if (task instanceof ScriptedPlay play) {
            return fromScripted(
                    task, play.scripted(1 - settings.noise(), List.of(problem)), problem, style, settings.turns(), rng);
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
        return fromScripted(task, policy, problem, style, 1, rng);
    }

    /** Each role's prompt and the policy's answer in the first {@code turns} turns (fewer if the episode ends). */
    static <S> List<Demo> fromScripted(
            Task<S> task, TextPolicy policy, Problem problem, PromptStyle style, int turns, SplittableRandom rng) {
        List<Demo> out = new ArrayList<>();
        S state = task.initialState(problem);
        for (int turn = 0; turn < Math.min(turns, task.maxTurns()); turn++) {
            for (String role : task.roles()) {
                Prompt prompt = task.prompt(state, role, turn, style);
                String answer = policy.answer(new PolicyRef("scripted", role), prompt, rng);
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
}
