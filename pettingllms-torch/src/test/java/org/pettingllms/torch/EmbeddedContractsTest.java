package org.pettingllms.torch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.testkit.LearnerContract;
import org.pettingllms.testkit.SamplerContract;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TorchSampler;

/** The embedded engine keeps the backend contracts, for an adapter policy (L2) and a full-weight policy (L1/L3). */
class EmbeddedContractsTest {
    abstract static class SamplerOn extends SamplerContract {
        final List<AutoCloseable> open = new ArrayList<>();
        PolicyRegistry reg;
        TorchSampler sampler;
        TorchLearner learner;

        SamplerOn() throws Exception {
            reg = TorchLearnerTest.registry();
            sampler = new TorchSampler(reg, m -> TorchSamplerTest.CHARS, 64, 100);
            learner = new TorchLearner(reg, TorchLearnerTest.settings());
            open.add(reg);
            open.add(sampler);
            open.add(learner);
        }

        @AfterEach
        void close() throws Exception {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }

        @Override
        protected Sampler sampler() {
            return sampler;
        }

        @Override
        protected Prompt prompt() {
            return Prompt.compact("plan-path tool\n#..A\n>");
        }

        @Override
        protected Learner learner() {
            return learner;
        }
    }

    @Nested
    class AdapterSampler extends SamplerOn {
        AdapterSampler() throws Exception {}

        @Override
        protected PolicyRef policy() {
            return TorchLearnerTest.TOOL;
        }
    }

    @Nested
    class FullWeightSampler extends SamplerOn {
        FullWeightSampler() throws Exception {}

        @Override
        protected PolicyRef policy() {
            return TorchLearnerTest.BASE;
        }
    }

    abstract static class LearnerOn extends LearnerContract {
        final List<AutoCloseable> open = new ArrayList<>();
        final Map<Learner, PolicyRegistry> registries = new IdentityHashMap<>();

        @AfterEach
        void close() throws Exception {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }

        @Override
        protected Learner learner() {
            try {
                PolicyRegistry reg = TorchLearnerTest.registry();
                TorchLearner learner = new TorchLearner(reg, TorchLearnerTest.settings());
                open.add(reg);
                open.add(learner);
                registries.put(learner, reg);
                return learner;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        protected List<TrainExample> samples(Learner learner, double... advantages) {
            return TorchLearnerTest.examples(registries.get(learner), policy(), advantages);
        }
    }

    @Nested
    class AdapterLearner extends LearnerOn {
        @Override
        protected PolicyRef policy() {
            return TorchLearnerTest.PLAN;
        }
    }

    @Nested
    class FullWeightLearner extends LearnerOn {
        @Override
        protected PolicyRef policy() {
            return TorchLearnerTest.BASE;
        }
    }
}
