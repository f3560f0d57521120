package org.pettingllms.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.testkit.RecordingLearner;
import org.pettingllms.testkit.ScriptedSampler;

/** The training loop on a program's rollouts: each role's adapter trains on its calls' groups, on-policy. */
class ProgramTrainingTest {
    static final List<String> ROLES = ProgramRolloutsTest.ROLES;

    final ProblemSource source = (split, from, count) -> {
        List<Problem> out = new ArrayList<>();
        for (long i = from; i < from + count; i++) {
            out.add(new Problem("p" + (i % 10), i, Map.of()));
        }
        return out;
    };

    @Test
    void aStepTrainsEachRoleOnTheGroupsOfItsCalls(@TempDir Path dir) throws Exception {
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: guess}\npolicy: {model: m, level: L2}\n",
                "test",
                List.of(
                        "train.steps=1",
                        "rollout.problemsPerStep=6",
                        "rollout.k=4",
                        "train.miniBatches=1",
                        "validation.problems=4"));
        PolicyMap policies = PolicyMap.forLevel(Level.L2, ROLES, "m", Set.of());
        RecordingLearner learner = new RecordingLearner();
        ScriptedSampler sampler =
                ScriptedSampler.of((p, prompt, rng) -> Integer.toString(rng.nextInt(10)), learner::version);
        ProgramRollouts rollouts =
                new ProgramRollouts(ProgramRolloutsTest.GUESS, ROLES, sampler, 1.0, 8, RolloutProgress.NONE);
        StepReport report = new Trainer(cfg, rollouts, source, policies, learner, dir).step(0);

        assertThat(learner.batches())
                .extracting(RecordingLearner.Batch::policy)
                .containsExactlyInAnyOrder(new PolicyRef("m", "scout"), new PolicyRef("m", "solver"));
        for (RecordingLearner.Batch b : learner.batches()) {
            // advantages are centred per (problem, call) group of 4: every trained group sums to zero
            double sum =
                    b.examples().stream().mapToDouble(TrainExample::advantage).sum();
            assertThat(sum).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(b.examples())
                    .hasSize(6 * 4)
                    .anySatisfy(e -> assertThat(e.advantage()).isNotZero());
        }
        assertThat(report.values())
                .containsKeys(Metric.SUCCESS, "program/runs", Metric.VAL + Metric.SUCCESS)
                .containsEntry("program/divergences", 0.0);
        assertThat(report.values().get("program/runs")).isEqualTo(6 * 8.0);
    }
}
