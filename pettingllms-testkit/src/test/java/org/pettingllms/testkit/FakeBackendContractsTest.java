package org.pettingllms.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/** The fakes the other tests lean on keep the backend contracts (where a fake can: it has no weights). */
class FakeBackendContractsTest {
    static final PolicyRef POLICY = new PolicyRef("m", "a");

    @Nested
    class ScriptedSamplerKeepsTheSamplerContract extends SamplerContract {
        final RecordingLearner learner = new RecordingLearner();
        final ScriptedSampler sampler = ScriptedSampler.of(
                (p, prompt, rng) -> {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < 3 + rng.nextInt(6); i++) {
                        sb.append((char) ('a' + rng.nextInt(5)));
                    }
                    return sb.toString();
                },
                learner::version);

        @Override
        protected Sampler sampler() {
            return sampler;
        }

        @Override
        protected PolicyRef policy() {
            return POLICY;
        }

        @Override
        protected Prompt prompt() {
            return Prompt.compact("say something\n>");
        }

        @Override
        protected Learner learner() {
            return learner;
        }

        @Override
        protected boolean realLogprobs() {
            return false;
        }
    }

    @Nested
    class RecordingLearnerKeepsTheLearnerContract extends LearnerContract {
        @Override
        protected Learner learner() {
            return new RecordingLearner();
        }

        @Override
        protected PolicyRef policy() {
            return POLICY;
        }

        @Override
        protected List<TrainExample> samples(Learner learner, double... advantages) {
            SplittableRandom rng = new SplittableRandom(5);
            List<TrainExample> out = new ArrayList<>();
            for (double a : advantages) {
                int n = 2 + rng.nextInt(4);
                int[] tokens = rng.ints(n, 0, 50).toArray();
                float[] lp = new float[n];
                for (int t = 0; t < n; t++) {
                    lp[t] = (float) -rng.nextDouble(0.1, 3);
                }
                out.add(new TrainExample(IntSeq.of(new int[] {1, 2, 3}), IntSeq.of(tokens), FloatSeq.of(lp), a));
            }
            return out;
        }

        @Override
        protected boolean hasWeights() {
            return false;
        }
    }
}
