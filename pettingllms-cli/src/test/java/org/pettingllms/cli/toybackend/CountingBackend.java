package org.pettingllms.cli.toybackend;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.text.backend.LearnerBackend;

/**
 * A learner backend added from outside the commands: this package plus one line in this module's test
 * {@code META-INF/services/org.pettingllms.text.backend.LearnerBackend}. It trains on the local engine and counts
 * what the run asked of it, and how many times a command opened it.
 */
public final class CountingBackend implements LearnerBackend {
    public static final AtomicInteger OPENED = new AtomicInteger();
    public static final AtomicInteger OPTIMIZER_STEPS = new AtomicInteger();
    public static final AtomicInteger SAMPLERS = new AtomicInteger();

    @Override
    public String kind() {
        return "toy-counting";
    }

    @Override
    public Opened open(Local local) {
        OPENED.incrementAndGet();
        SAMPLERS.incrementAndGet();
        Learner inner = local.learner().get();
        Learner counting = new Learner() {
            @Override
            public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
                return inner.forwardBackward(policy, batch, loss);
            }

            @Override
            public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
                return inner.logprobs(policy, batch);
            }

            @Override
            public OptimStats optimStep(PolicyRef policy, OptimParams params) {
                OPTIMIZER_STEPS.incrementAndGet();
                return inner.optimStep(policy, params);
            }

            @Override
            public long publish(PolicyRef policy) {
                return inner.publish(policy);
            }

            @Override
            public void save(PolicyRef policy, Path dir) throws IOException {
                inner.save(policy, dir);
            }

            @Override
            public void load(PolicyRef policy, Path dir) throws IOException {
                inner.load(policy, dir);
            }
        };
        return new Opened(local.sampler().get(), counting, false, "", () -> {});
    }
}
