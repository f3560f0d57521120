package org.pettingllms.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.pettingllms.core.algo.PolicyLoss;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;

/**
 * A learner that trains nothing and records everything: which policy got which batch, optimizer steps and their
 * learning rates; each optimizer step moves the policy's weight version, as real weights would. Its loss is the reference PPO loss at ratio 1 (new logprobs = old), so tests can check sums.
 */
public final class RecordingLearner implements Learner {
    /** One recorded forward-backward. */
    public record Batch(PolicyRef policy, List<TrainExample> examples, LossConfig loss) {}

    private final List<Batch> batches = Collections.synchronizedList(new ArrayList<>());
    private final Map<PolicyRef, AtomicLong> steps = new ConcurrentHashMap<>();
    private final Map<PolicyRef, AtomicLong> versions = new ConcurrentHashMap<>();
    private final List<Double> learningRates = Collections.synchronizedList(new ArrayList<>());

    @Override
    public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
        batches.add(new Batch(policy, List.copyOf(batch), loss));
        double[][] tokenLosses = new double[batch.size()][];
        long tokens = 0;
        for (int i = 0; i < batch.size(); i++) {
            TrainExample e = batch.get(i);
            tokenLosses[i] = new double[e.completionTokens().size()];
            for (int t = 0; t < tokenLosses[i].length; t++) {
                double old = e.oldLogprobs().get(t);
                tokenLosses[i][t] = PolicyLoss.tokenLoss(e.tokenAdvantage(t), old, old, loss);
            }
            tokens += tokenLosses[i].length;
        }
        return new LossStats(PolicyLoss.aggregate(tokenLosses, loss.aggregation()), 0, 0, 0, 0, tokens);
    }

    /** It has no weights: the policy is whatever sampled the examples (ratio 1). */
    @Override
    public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
        return batch.stream().map(TrainExample::oldLogprobs).toList();
    }

    @Override
    public OptimStats optimStep(PolicyRef policy, OptimParams params) {
        steps.computeIfAbsent(policy, p -> new AtomicLong()).incrementAndGet();
        versions.computeIfAbsent(policy, p -> new AtomicLong()).incrementAndGet(); // "weights" changed
        learningRates.add(params.learningRate());
        return new OptimStats(0, params.learningRate(), false);
    }

    @Override
    public long publish(PolicyRef policy) {
        return version(policy);
    }

    /** The learning rate of every optimizer step, in order. */
    public List<Double> learningRates() {
        synchronized (learningRates) {
            return List.copyOf(learningRates);
        }
    }

    /** Saves its counters (it has no weights), so that resuming can be tested without a model. */
    @Override
    public void save(PolicyRef policy, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("recording.txt"), optimSteps(policy) + " " + version(policy));
    }

    @Override
    public void load(PolicyRef policy, Path dir) throws IOException {
        String[] parts = Files.readString(dir.resolve("recording.txt")).trim().split(" ");
        steps.put(policy, new AtomicLong(Long.parseLong(parts[0])));
        versions.put(policy, new AtomicLong(Long.parseLong(parts[1])));
    }

    /** The weight version of a policy: its optimizer steps so far (0 before any). */
    public long version(PolicyRef policy) {
        AtomicLong v = versions.get(policy);
        return v == null ? 0 : v.get();
    }

    public List<Batch> batches() {
        synchronized (batches) {
            return List.copyOf(batches);
        }
    }

    public long optimSteps(PolicyRef policy) {
        AtomicLong n = steps.get(policy);
        return n == null ? 0 : n.get();
    }
}
