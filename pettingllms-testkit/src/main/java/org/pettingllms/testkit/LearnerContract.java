package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;

/**
 * What every {@link Learner} must do (embedded, remote, fakes): at the start of a step it recomputes the
 * sampler's logprobs (ratio 1, so the PPO loss is minus the token-weighted mean advantage); an optimizer step
 * moves the weights and their version, a step with non-finite gradients is skipped and moves neither, and a
 * checkpoint restores weights and version exactly. Extend it in a test class and supply the pieces.
 */
public abstract class LearnerContract {
    @TempDir
    protected Path dir;

    /** A fresh learner each time it is called, with the untrained weights. */
    protected abstract Learner learner();

    protected abstract PolicyRef policy();

    /** Samples of the untrained policy (prompt, completion, sampling logprobs) with the given advantages. */
    protected abstract List<TrainExample> samples(Learner learner, double... advantages);

    /** Whether the learner has weights that move (a recording fake has none). */
    protected boolean hasWeights() {
        return true;
    }

    /**
     * An example whose gradients are not finite for this learner. The default, an advantage of 1e300, is finite
     * for the data model and infinite in single precision, where learners compute; override for other backends.
     */
    protected TrainExample poison(TrainExample e) {
        return new TrainExample(e.promptTokens(), e.completionTokens(), e.oldLogprobs(), 1e300);
    }

    protected double tolerance() {
        return 1e-4;
    }

    @Test
    public void onPolicyTheLearnerRecomputesTheSamplersLogprobsAndTheLossIsMinusTheMeanAdvantage() {
        Learner learner = learner();
        List<TrainExample> batch = samples(learner, 1.0, -0.5, 0.25);
        List<FloatSeq> now = learner.logprobs(policy(), batch);
        assertThat(now).hasSize(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            assertThat(now.get(i).size())
                    .isEqualTo(batch.get(i).completionTokens().size());
        }
        assertThat(meanGap(now, batch))
                .as("logprobs of the weights that sampled")
                .isLessThan(tolerance());
        Learner.LossStats stats = learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        double weighted = 0;
        long tokens = 0;
        for (TrainExample e : batch) {
            weighted += e.advantage() * e.completionTokens().size();
            tokens += e.completionTokens().size();
        }
        assertThat(stats.tokens()).isEqualTo(tokens);
        assertThat(stats.loss())
                .as("ratio 1: minus the token mean of the advantages")
                .isCloseTo(-weighted / tokens, within(tolerance()));
        assertThat(stats.logprobShift()).isLessThan(tolerance());
    }

    /**
     * Token weights scale each token's advantage (asynchronous training's correction): at ratio 1 the loss is minus
     * the token mean of {@code A x w_t}, with a weight-0 token counted in the mean and adding nothing.
     */
    @Test
    public void tokenWeightsScaleEachTokensAdvantage() {
        Learner learner = learner();
        List<TrainExample> batch = new ArrayList<>();
        double weighted = 0;
        long tokens = 0;
        int row = 0;
        for (TrainExample e : samples(learner, 1.0, -0.5)) {
            int c = e.completionTokens().size();
            float[] w = new float[c];
            for (int t = 0; t < c; t++) {
                w[t] = t == 0 ? 0f : (row == 0 ? 1.5f : 0.25f) + 0.125f * (t % 3);
                weighted += e.advantage() * w[t];
            }
            tokens += c;
            batch.add(e.corrected(e.oldLogprobs(), FloatSeq.of(w)));
            row++;
        }
        Learner.LossStats stats = learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        assertThat(stats.tokens()).isEqualTo(tokens);
        assertThat(stats.loss())
                .as("ratio 1: minus the token mean of the weighted advantages")
                .isCloseTo(-weighted / tokens, within(tolerance()));
    }

    @Test
    public void anOptimizerStepMovesTheWeightsAndTheirVersion() {
        Learner learner = learner();
        long v0 = learner.publish(policy());
        List<TrainExample> batch = samples(learner, 1.0, -1.0, 1.0, -1.0);
        learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        Learner.OptimStats o = learner.optimStep(policy(), OptimParams.adamW(1e-2, 0.0, 1.0));
        assertThat(o.skipped()).isFalse();
        assertThat(o.learningRate()).isEqualTo(1e-2);
        assertThat(learner.publish(policy())).isNotEqualTo(v0);
        if (hasWeights()) {
            assertThat(meanGap(learner.logprobs(policy(), batch), batch))
                    .as("the weights moved")
                    .isGreaterThan(tolerance());
        }
    }

    @Test
    public void aStepWithNonFiniteGradientsIsSkippedAndChangesNothing() {
        if (!hasWeights()) {
            return;
        }
        Learner learner = learner();
        long v0 = learner.publish(policy());
        List<TrainExample> batch = samples(learner, 1.0, -1.0);
        List<TrainExample> poisoned = new ArrayList<>();
        batch.forEach(e -> poisoned.add(poison(e)));
        learner.forwardBackward(policy(), poisoned, LossConfig.DEFAULT);
        assertThat(learner.optimStep(policy(), OptimParams.adamW(1e-2, 0.0, 1.0))
                        .skipped())
                .isTrue();
        assertThat(learner.publish(policy())).isEqualTo(v0);
        assertThat(meanGap(learner.logprobs(policy(), batch), batch))
                .as("the weights did not move")
                .isLessThan(tolerance());
        // the poisoned gradients are gone: the next clean step applies
        learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        assertThat(learner.optimStep(policy(), OptimParams.adamW(1e-2, 0.0, 1.0))
                        .skipped())
                .isFalse();
    }

    @Test
    public void aCheckpointRestoresWeightsAndVersion() throws Exception {
        Learner learner = learner();
        List<TrainExample> batch = samples(learner, 1.0, -1.0, 0.5);
        learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        learner.optimStep(policy(), OptimParams.adamW(1e-2, 0.0, 1.0));
        long saved = learner.publish(policy());
        List<FloatSeq> atSave = learner.logprobs(policy(), batch);
        learner.save(policy(), dir.resolve("ckpt"));
        learner.forwardBackward(policy(), batch, LossConfig.DEFAULT);
        learner.optimStep(policy(), OptimParams.adamW(1e-2, 0.0, 1.0));
        assertThat(learner.publish(policy())).isNotEqualTo(saved);

        Learner restored = learner();
        restored.load(policy(), dir.resolve("ckpt"));
        assertThat(restored.publish(policy())).isEqualTo(saved);
        List<FloatSeq> back = restored.logprobs(policy(), batch);
        for (int i = 0; i < batch.size(); i++) {
            for (int t = 0; t < back.get(i).size(); t++) {
                assertThat((double) back.get(i).get(t)).isCloseTo(atSave.get(i).get(t), within(tolerance()));
            }
        }
    }

    /** Token mean of |now - the examples' sampling logprobs|. */
    static double meanGap(List<FloatSeq> now, List<TrainExample> batch) {
        double sum = 0;
        long tokens = 0;
        for (int i = 0; i < batch.size(); i++) {
            for (int t = 0; t < now.get(i).size(); t++) {
                sum += Math.abs(now.get(i).get(t) - batch.get(i).oldLogprobs().get(t));
                tokens++;
            }
        }
        return sum / Math.max(1, tokens);
    }
}
