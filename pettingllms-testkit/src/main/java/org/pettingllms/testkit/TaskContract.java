package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.StepRecord;
import org.pettingllms.core.task.Task;

/**
 * The contract every task must pass. Extend it in a test class and supply the task, some problems and a policy
 * that plays it (good and bad answers mixed). States must be values: equal inputs give equal states, and
 * {@code step} never changes its input.
 */
public abstract class TaskContract<S> {
    protected abstract Task<S> task();

    protected abstract List<Problem> problems();

    /** A scripted policy that plays the task with a mix of good and bad answers. */
    protected abstract TextPolicy policy();

    /**
     * A policy that answers each prompt as {@code right} or as {@code wrong}, by a coin the episode's random stream
     * throws (both are asked with a fixed stream of their own): the usual way to mix good and bad answers.
     */
    public static TextPolicy halfRight(TextPolicy right, TextPolicy wrong) {
        return (ref, prompt, rng) -> (rng.nextBoolean() ? right : wrong).answer(ref, prompt, new SplittableRandom(1));
    }

    /** Prompt styles the task supports. */
    protected List<PromptStyle> styles() {
        return List.of(PromptStyle.COMPACT, PromptStyle.CHAT);
    }

    /** Hostile and malformed answers; tasks may add their own. */
    protected List<String> garbage() {
        SplittableRandom rng = new SplittableRandom(7);
        StringBuilder noise = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            noise.appendCodePoint(rng.nextInt(0x20, 0x2FFF));
        }
        return List.of(
                "",
                " ",
                "\n\n\n",
                "\u0000\u0001\u0002",
                noise.toString(),
                "x".repeat(200_000),
                "U".repeat(100_000),
                "**Actions List**: [",
                "**Actions List**: []",
                "**Actions List**: [\"Q\"]",
                "[[[[]]]]",
                "(-1,-1,-1)",
                "(99999999999999999999,1,1)",
                "```python\nprint(1)\n```",
                "\\boxed{",
                "\uD83D\uDE00\u202E\u200B",
                "NaN",
                "1e309",
                "-0");
    }

    private RolloutResult rollout(PromptStyle style, long seed) {
        Task<S> task = task();
        PolicyMap policies =
                PolicyMap.forLevel(task.roles().size() == 1 ? Level.L0 : Level.L2, task.roles(), "scripted", Set.of());
        RolloutConfig cfg = new RolloutConfig(
                RolloutConfig.Mode.TREE,
                3,
                true,
                style,
                new SamplingParams(1.0, 0, 1.0, 512, List.of(), seed),
                RewardMix.PAPER,
                8);
        return new RolloutEngine(ScriptedSampler.of(policy())).run(task, problems(), policies, cfg);
    }

    @Test
    void sameSeedsAndActionsGiveSameObservationsAndRewards() {
        for (PromptStyle style : styles()) {
            List<String> a = fingerprint(rollout(style, 11));
            List<String> b = fingerprint(rollout(style, 11));
            assertThat(a).as("style %s", style).isNotEmpty().isEqualTo(b);
        }
    }

    private static List<String> fingerprint(RolloutResult r) {
        return r.samples().stream()
                .sorted(Comparator.comparing(Sample::problemId)
                        .thenComparing(Sample::turn)
                        .thenComparing(Sample::role)
                        .thenComparing(Sample::candidate))
                .map(s -> s.problemId() + "|" + s.role() + "|" + s.turn() + "|" + s.candidate() + "|"
                        + s.prompt().text() + "|" + s.completion().text() + "|" + s.rewardParts())
                .toList();
    }

    @Test
    void steppingNeverChangesTheInputState() {
        Task<S> task = task();
        TextPolicy policy = policy();
        for (Problem p : problems()) {
            S state = task.initialState(p);
            assertThat(state).as("states are values: same problem, equal state").isEqualTo(task.initialState(p));
            for (int turn = 0; turn < 2; turn++) {
                for (String role : task.roles()) {
                    S before = state;
                    Map<PromptStyle, String> prompts = new EnumMap<>(PromptStyle.class);
                    styles().forEach(st ->
                            prompts.put(st, task.prompt(before, role, 0, st).text()));
                    List<Transition<S>> first = new ArrayList<>();
                    for (int c = 0; c < 4; c++) {
                        var prompt = task.prompt(before, role, turn, PromptStyle.COMPACT);
                        String answer = policy.answer(null, prompt, new SplittableRandom(c * 31L + turn));
                        first.add(task.step(before, role, Completion.ofText(answer)));
                    }
                    styles().forEach(st -> assertThat(
                                    task.prompt(before, role, 0, st).text())
                            .as("prompt after stepping")
                            .isEqualTo(prompts.get(st)));
                    for (int c = 0; c < 4; c++) {
                        Transition<S> again = task.step(
                                before,
                                role,
                                Completion.ofText(policy.answer(
                                        null,
                                        task.prompt(before, role, turn, PromptStyle.COMPACT),
                                        new SplittableRandom(c * 31L + turn))));
                        assertThat(again).as("stepping the same state twice").isEqualTo(first.get(c));
                    }
                    state = first.get(0).done() ? before : first.get(0).next();
                }
            }
        }
    }

    @Test
    void garbageAnswersNeverThrowAndGiveFiniteRewards() {
        Task<S> task = task();
        for (Problem p : problems().subList(0, Math.min(3, problems().size()))) {
            S state = task.initialState(p);
            for (String role : task.roles()) {
                for (String g : garbage()) {
                    assertThatCode(() -> {
                                Transition<S> t = task.step(state, role, Completion.ofText(g));
                                assertThat(t.outcome()).isNotNull();
                                assertThat(Double.isFinite(
                                                t.reward().local() + t.reward().team()))
                                        .isTrue();
                            })
                            .as("role %s, answer %.40s", role, g)
                            .doesNotThrowAnyException();
                }
            }
        }
    }

    @Test
    void episodesEndWithinTheTurnCapAndStopAtTheFirstTerminalStep() {
        Task<S> task = task();
        for (PromptStyle style : styles()) {
            for (EpisodeResult e : rollout(style, 5).episodes()) {
                assertThat(e.turns()).isBetween(1, task.maxTurns());
                assertThat(e.path())
                        .hasSizeLessThanOrEqualTo(task.maxTurns() * task.roles().size());
                List<StepRecord> path = e.path();
                for (int i = 0; i < path.size() - 1; i++) {
                    assertThat(path.get(i).done())
                            .as("only the last step may be terminal")
                            .isFalse();
                }
                boolean full = path.size() == task.maxTurns() * task.roles().size();
                assertThat(full || path.get(path.size() - 1).done())
                        .as("an episode ends at the cap or when done")
                        .isTrue();
                assertThat(e.success()).isEqualTo(path.get(path.size() - 1).success());
                e.samples().forEach(s -> assertThat(Double.isFinite(s.reward())).isTrue());
            }
        }
    }
}
