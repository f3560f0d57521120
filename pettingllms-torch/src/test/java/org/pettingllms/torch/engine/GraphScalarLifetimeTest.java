package org.pettingllms.torch.engine;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.model.DecoderModel;

/**
 * Java's garbage collector running between a forward pass and its backward pass changes nothing. The regression:
 * DJL's arithmetic with a Java number ({@code loss.mul(0.5)}, the LoRA scale) puts the number in a Java direct
 * buffer that PyTorch reads in place and closes that tensor after the op, while autograd keeps it for the
 * backward pass; once collected, the buffer's memory is reused and the backward reads whatever is there (gradient
 * norms off by up to 75% in about one training step in twenty of a long test run, the loss unchanged).
 */
class GraphScalarLifetimeTest {
    static final PolicyRef PLAN = new PolicyRef("tiny", "plan");
    static final List<ByteBuffer> SCRIBBLES = new ArrayList<>();

    @AfterEach
    void reset() {
        PolicyTrainer.betweenForwardAndBackward = () -> {};
        SCRIBBLES.clear();
    }

    /** Collects garbage, lets the cleaner free dead direct buffers, then fills freshly allocated small buffers. */
    static void collectAndScribble() {
        for (int round = 0; round < 2; round++) {
            System.gc();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (int i = 0; i < 4000; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(4 * (1 + i % 4)).order(ByteOrder.nativeOrder());
            while (b.remaining() >= 4) {
                b.putFloat(1234.5f);
            }
            SCRIBBLES.add(b);
        }
    }

    static List<TrainExample> batch() {
        int[][] prompts = {{1, 17, 42, 5}, {1, 9, 77}, {1, 17, 42, 5}, {1, 64}};
        int[][] completions = {{7, 8, 9}, {10, 3}, {11, 12}, {13, 14, 15}};
        double[] adv = {1.0, -0.5, -1.0, 0.5};
        List<TrainExample> out = new ArrayList<>();
        for (int i = 0; i < prompts.length; i++) {
            out.add(new TrainExample(
                    IntSeq.of(prompts[i]),
                    IntSeq.of(completions[i]),
                    FloatSeq.of(new float[completions[i].length]),
                    adv[i]));
        }
        return out;
    }

    /** A PPO step, a supervised step and a PPO step with every loss term, two micro-batches each: gradient norms. */
    static double[] gradNorms() throws Exception {
        try (PolicyRegistry reg = new PolicyRegistry(
                        Map.of("tiny", DecoderModel.load(SharedFiles.fixture("qwen3-tiny"), Device.cpu())),
                        new LoraSettings(4, 8, LoraSettings.DEFAULT.targetModules()),
                        3);
                TorchLearner learner = new TorchLearner(reg, new TrainSettings(2, false))) {
            OptimParams adam = new OptimParams(1e-2, 0.9, 0.999, 1e-8, 0.0, 100.0);
            learner.forwardBackward(PLAN, batch(), LossConfig.DEFAULT);
            Learner.OptimStats first = learner.optimStep(PLAN, adam);
            learner.forwardBackwardSupervised(PLAN, batch());
            Learner.OptimStats second = learner.optimStep(PLAN, adam);
            // clipping active (the adapter has moved), KL to the base model and an entropy bonus, per-sequence means
            learner.forwardBackward(
                    PLAN,
                    batch(),
                    new LossConfig(0.01, 0.01, LossConfig.Aggregation.SEQUENCE_MEAN_TOKEN_MEAN, 0.1, 0.01));
            Learner.OptimStats third = learner.optimStep(PLAN, adam);
            return new double[] {first.gradNorm(), second.gradNorm(), third.gradNorm()};
        }
    }

    @Tag("heavy")
    @Test
    void garbageCollectedBetweenForwardAndBackwardChangesNoGradient() throws Exception {
        Torch.runOnOneThread(() -> {
            double[] expected = gradNorms();
            assertThat(expected[0]).isPositive();
            assertThat(expected[1]).isPositive();
            assertThat(expected[2]).isPositive();
            PolicyTrainer.betweenForwardAndBackward = GraphScalarLifetimeTest::collectAndScribble;
            for (int trial = 0; trial < 8; trial++) {
                assertThat(gradNorms()).as("trial " + trial).containsExactly(expected);
                SCRIBBLES.clear();
            }
        });
    }
}
