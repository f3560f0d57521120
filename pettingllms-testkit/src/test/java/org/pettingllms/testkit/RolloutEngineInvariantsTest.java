package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.Advantages;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.algo.PolicyRouter;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutException;
import org.pettingllms.core.rollout.RolloutResult;

/** Invariants of tree sampling (AT-GRPO.md) on a hand-checkable task, and the reference defects 1-5 and 8. */
class RolloutEngineInvariantsTest {
    static final int K = 4;
    final CounterTask task = new CounterTask(List.of("a", "b"), 3);
    final PolicyMap l1 = PolicyMap.forLevel(Level.L1, task.roles(), "m", Set.of());

    static RolloutConfig config(RolloutConfig.Mode mode, boolean greedy, int concurrency) {
        return new RolloutConfig(
                mode,
                K,
                greedy,
                PromptStyle.COMPACT,
                new SamplingParams(1, 0, 1, 16, List.of(), 42),
                RewardMix.PAPER,
                concurrency);
    }

    static List<Problem> problems(int n, long target) {
        List<Problem> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Problem.generated("p" + i, target));
        }
        return out;
    }

    /** Candidate c answers c+1: rewards 1..K, so the best candidate is the last. */
    static ScriptedSampler ascending() {
        return ScriptedSampler.byCandidate((policy, prompt, c) -> Integer.toString(c + 1));
    }

    @Test
    void everyGroupHasKMembersWithByteIdenticalPrompts() {
        RolloutResult r = new RolloutEngine(ascending())
                .run(task, problems(8, 1000), l1, config(RolloutConfig.Mode.TREE, true, 64));
        Map<GroupKey, List<Sample>> groups = Grouping.PROBLEM_ROLE_TURN.group(r.samples());
        assertThat(groups).hasSize(8 * 2 * 3);
        groups.values().forEach(g -> {
            assertThat(g).hasSize(K);
            assertThat(g.stream().map(s -> s.prompt().text()).distinct()).hasSize(1);
            assertThat(g.stream().map(Sample::candidate)).containsExactly(0, 1, 2, 3);
            assertThat(g.stream().filter(Sample::chosen)).hasSize(1);
        });
    }

    @Test
    void laterRolesSeeTheChosenBranchOfTheSameTurn() {
        // reference defects 1 and 3: b must see a's chosen action (4, the best), not a pre-generated prompt
        ScriptedSampler sampler = ascending();
        new RolloutEngine(sampler).run(task, problems(1, 1000), l1, config(RolloutConfig.Mode.TREE, true, 1));
        List<String> prompts =
                sampler.calls().stream().map(c -> c.prompt().text()).toList();
        assertThat(prompts)
                .containsExactly(
                        "p0 a t0 value=0 history=",
                        "p0 b t0 value=4 history=a+4;",
                        "p0 a t1 value=8 history=a+4;b+4;",
                        "p0 b t1 value=12 history=a+4;b+4;a+4;",
                        "p0 a t2 value=16 history=a+4;b+4;a+4;b+4;",
                        "p0 b t2 value=20 history=a+4;b+4;a+4;b+4;a+4;");
    }

    @Test
    void tiesGoToTheFirstCandidateAndGreedyOffContinuesFromCandidateZero() {
        // answers 2, 3, 3, 1: best is candidate 1 (first of the tied 3s)
        ScriptedSampler tied = ScriptedSampler.byCandidate(
                (p, prompt, c) -> List.of("2", "3", "3", "1").get(c));
        RolloutResult r =
                new RolloutEngine(tied).run(task, problems(1, 1000), l1, config(RolloutConfig.Mode.TREE, true, 1));
        assertThat(r.samples().stream()
                        .filter(Sample::chosen)
                        .map(Sample::candidate)
                        .distinct())
                .containsExactly(1);
        ScriptedSampler sampler = ascending();
        new RolloutEngine(sampler).run(task, problems(1, 1000), l1, config(RolloutConfig.Mode.TREE, false, 1));
        assertThat(sampler.calls().get(1).prompt().text()).isEqualTo("p0 b t0 value=1 history=a+1;");
    }

    @Test
    void laterRolesGetTheirOwnRewardSpreadAndNonZeroAdvantages() {
        // reference defect 3: b's K candidates were all scored on one copied state, so its advantages were 0
        RolloutResult r = new RolloutEngine(ascending())
                .run(task, problems(1, 1000), l1, config(RolloutConfig.Mode.TREE, true, 1));
        List<ScoredSample> scored = Advantages.compute(Grouping.PROBLEM_ROLE_TURN.group(r.samples()), true);
        // b's reward = alpha*team + local = 2 * (c + 1): 2, 4, 6, 8
        assertThat(scored.stream()
                        .filter(s -> s.sample().role().equals("b") && s.sample().turn() == 0)
                        .map(s -> s.sample().reward()))
                .containsExactly(2.0, 4.0, 6.0, 8.0);
        assertThat(scored).filteredOn(s -> s.sample().role().equals("b")).allMatch(s -> s.advantage() != 0);
    }

    @Test
    void episodesStopAtTheFirstTerminalMicroStep() {
        // target 4: a's best candidate (4) ends the episode in turn 0, so b never acts
        ScriptedSampler sampler = ascending();
        RolloutResult r =
                new RolloutEngine(sampler).run(task, problems(3, 4), l1, config(RolloutConfig.Mode.TREE, true, 4));
        assertThat(r.samples()).allMatch(s -> s.role().equals("a") && s.turn() == 0);
        assertThat(sampler.calls()).hasSize(3);
        r.episodes().forEach(e -> {
            assertThat(e.success()).isTrue();
            assertThat(e.turns()).isEqualTo(1);
            assertThat(e.path()).hasSize(1);
        });
        // target 6: a (4) does not finish, b (4) does: 2 micro-steps in turn 0
        RolloutResult r6 =
                new RolloutEngine(ascending()).run(task, problems(1, 6), l1, config(RolloutConfig.Mode.TREE, true, 1));
        assertThat(r6.episodes().get(0).path()).hasSize(2);
    }

    @Test
    void eachCandidateStepsFromTheTrueCurrentState() {
        // reference defect 2: after turn 0 the K candidates of later turns were applied to stale copies.
        RolloutResult r = new RolloutEngine(ascending())
                .run(task, problems(1, 1000), l1, config(RolloutConfig.Mode.TREE, true, 1));
        for (Sample s : r.samples()) {
            int expectedBefore = 8 * s.turn() + (s.role().equals("b") ? 4 : 0);
            assertThat(s.prompt().text()).contains("value=" + expectedBefore + " ");
        }
    }

    @Test
    void groupsNeverMixProblems() {
        // reference defect 4: the key divided the problem index by K and merged K problems in one group
        RolloutResult r = new RolloutEngine(ascending())
                .run(task, problems(2 * K, 1000), l1, config(RolloutConfig.Mode.TREE, true, 64));
        Map<GroupKey, List<Sample>> groups = Grouping.PROBLEM_ROLE_TURN.group(r.samples());
        groups.forEach((k, g) -> assertThat(g).allMatch(s -> s.problemId().equals(k.problemId())));
        assertThat(groups.keySet().stream().map(GroupKey::problemId).collect(Collectors.toSet()))
                .hasSize(2 * K);
    }

    @Test
    void perRoleAdaptersSampleAndTrainOnlyTheirRole() {
        // reference defect 5: logprobs did not switch adapters, and only the active adapter was trained
        ScriptedSampler sampler = ScriptedSampler.byCandidate((p, prompt, c) -> Integer.toString(c + 1));
        PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "base", Set.of());
        RolloutResult r =
                new RolloutEngine(sampler).run(task, problems(2, 1000), l2, config(RolloutConfig.Mode.TREE, true, 4));
        for (ScriptedSampler.Call call : sampler.calls()) {
            String role = call.prompt().text().split(" ")[1];
            assertThat(call.policy()).isEqualTo(new PolicyRef("base", role));
        }
        var routed = PolicyRouter.route(Advantages.compute(Grouping.PROBLEM_ROLE_TURN.group(r.samples()), true), l2);
        assertThat(routed.keySet()).containsExactlyInAnyOrder(new PolicyRef("base", "a"), new PolicyRef("base", "b"));
        routed.forEach((policy, samples) -> {
            assertThat(samples).isNotEmpty();
            assertThat(samples).allMatch(s -> s.sample().role().equals(policy.adapter()));
        });
        // a sample that was sampled with the wrong adapter is refused
        Sample wrong = r.samples().get(0);
        Sample forged = new Sample(
                wrong.problemId(),
                "b",
                wrong.turn(),
                new PolicyRef("base", "a"),
                wrong.prompt(),
                wrong.completion(),
                wrong.rewardParts(),
                wrong.outcome(),
                wrong.reward(),
                wrong.unitId(),
                0,
                false);
        assertThatThrownBy(() -> PolicyRouter.route(List.of(new ScoredSample(forged, 1)), l2))
                .hasMessageContaining("role 'b'");
    }

    @Test
    void untrainedRolesActButAreNotRouted() {
        PolicyMap map = PolicyMap.forLevel(Level.L2, task.roles(), "base", Set.of("a"));
        RolloutResult r = new RolloutEngine(ascending())
                .run(task, problems(1, 1000), map, config(RolloutConfig.Mode.TREE, true, 1));
        assertThat(r.samples()).anyMatch(s -> s.role().equals("a"));
        var routed = PolicyRouter.route(Advantages.compute(Grouping.PROBLEM_ROLE_TURN.group(r.samples()), true), map);
        assertThat(routed.keySet()).containsExactly(new PolicyRef("base", "b"));
    }

    @Test
    void parallelSamplingRunsKIndependentTrajectoriesWithOneGroupPerProblem() {
        // reference defect 8: the "GRPO baseline" still used tree sampling
        ScriptedSampler sampler = ScriptedSampler.of((p, prompt, rng) -> Integer.toString(1 + rng.nextInt(5)));
        CounterTask single = new CounterTask(List.of("a"), 3);
        PolicyMap l0 = PolicyMap.forLevel(Level.L0, single.roles(), "m", Set.of());
        RolloutResult r = new RolloutEngine(sampler)
                .run(single, problems(3, 1000), l0, config(RolloutConfig.Mode.PARALLEL, true, 8));
        assertThat(sampler.calls()).allMatch(c -> c.n() == 1);
        assertThat(r.episodes()).hasSize(3 * K);
        assertThat(r.episodes().stream()
                        .map(e -> e.problem().id() + "#" + e.trajectory())
                        .distinct())
                .hasSize(3 * K);
        Map<GroupKey, List<Sample>> groups = Grouping.PROBLEM.group(r.samples());
        assertThat(groups).hasSize(3);
        for (EpisodeResult e : r.episodes()) {
            // every decision of a trajectory carries the trajectory's return: the sum of its rewards
            double ret = e.path().stream().mapToDouble(s -> s.mixedReward()).sum();
            assertThat(e.samples()).hasSize(3).allMatch(s -> s.reward() == ret);
        }
        Set<String> distinctTrajectories = new HashSet<>();
        r.episodes().forEach(e -> distinctTrajectories.add(e.path().toString()));
        assertThat(distinctTrajectories)
                .as("trajectories are sampled independently")
                .hasSizeGreaterThan(1);
    }

    @Test
    void resultsDoNotDependOnConcurrency() {
        ScriptedSampler random = ScriptedSampler.of((p, prompt, rng) -> Integer.toString(rng.nextInt(6)));
        var cfg1 = config(RolloutConfig.Mode.TREE, true, 1);
        var cfg64 = config(RolloutConfig.Mode.TREE, true, 64);
        List<Sample> a =
                new RolloutEngine(random).run(task, problems(16, 20), l1, cfg1).samples();
        List<Sample> b =
                new RolloutEngine(random).run(task, problems(16, 20), l1, cfg64).samples();
        assertThat(a).isEqualTo(b);
    }

    @Test
    void aSamplerReturningTheWrongCountIsAnInfrastructureError() {
        ScriptedSampler shortSampler = ScriptedSampler.of((p, prompt, rng) -> "1");
        Sampler broken = (policy, prompt, n, params) -> shortSampler.sample(policy, prompt, n - 1, params);
        assertThatThrownBy(() -> new RolloutEngine(broken)
                        .run(task, problems(1, 10), l1, config(RolloutConfig.Mode.TREE, true, 1)))
                .isInstanceOf(RolloutException.class)
                .hasMessageContaining("returned 3 completions for n=4");
    }
}
