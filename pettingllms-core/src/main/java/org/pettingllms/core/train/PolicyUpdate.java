package org.pettingllms.core.train;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;

/**
 * One policy's update in a training step (AT-GRPO.md, "Policy loss": one PPO epoch by default, mini-batches):
 * for each epoch the step's samples are shuffled and split into {@code train.miniBatches} near-equal mini-batches,
 * each one forward-backward and one optimizer step. After the first mini-batch the weights have moved, so the
 * ratio {@code rho = exp(logp - logp_old)} against the sampling logprobs departs from 1 and the clip matters; with
 * one mini-batch and one epoch the update is a single policy-gradient step.
 *
 * @param loss       token-weighted means of the mini-batches' loss, clip fraction, KL and entropy; tokens summed;
 *                   its {@code logprobShift} is the mean over the mini-batches after the first: how far the step's
 *                   own updates moved the policy away from the weights that sampled it
 * @param samplerGap the first mini-batch's {@code |logp - logp_old|}: the learner recomputing the sampler's
 *                   logprobs on the same weights, so anything above float noise means sampler and learner disagree
 * @param optim      mean gradient norm, the last learning rate, skipped if any step was skipped
 */
record PolicyUpdate(Learner.LossStats loss, double samplerGap, Learner.OptimStats optim) {

    /**
     * @param step the training step (0-based): its optimizer steps are schedule positions {@code step x
     *             updatesPerStep} onwards, so the schedule is the same whether or not a run was resumed
     * @param beforeOptimizerStep run before each optimizer step (asynchronous training holds the first one until the
     *             rollouts that use the weights it changes allow it)
     */
    static PolicyUpdate run(
            Learner learner,
            PolicyRef policy,
            List<TrainExample> examples,
            RunConfig.Train train,
            int step,
            long seed,
            Runnable beforeOptimizerStep) {
        long firstUpdate = (long) step * train.updatesPerStep();
        double loss = 0, clip = 0, kl = 0, entropy = 0, shift = 0, gradNorm = 0, lr = 0;
        double samplerGap = 0;
        long tokens = 0, laterTokens = 0;
        int updates = 0; // fewer than epochs x miniBatches when a step has fewer samples than mini-batches
        boolean skipped = false;
        for (int epoch = 0; epoch < train.epochs(); epoch++) {
            for (List<TrainExample> mb : miniBatches(examples, train.miniBatches(), seed + epoch)) {
                Learner.LossStats l = learner.forwardBackward(policy, mb, train.loss());
                beforeOptimizerStep.run();
                Learner.OptimStats o = learner.optimStep(policy, train.optim(firstUpdate + updates));
                loss += l.loss() * l.tokens();
                clip += l.clipFraction() * l.tokens();
                kl += l.kl() * l.tokens();
                entropy += l.entropy() * l.tokens();
                if (updates == 0) {
                    samplerGap = l.logprobShift();
                } else {
                    shift += l.logprobShift() * l.tokens();
                    laterTokens += l.tokens();
                }
                tokens += l.tokens();
                gradNorm += o.gradNorm();
                lr = o.learningRate();
                skipped |= o.skipped();
                updates++;
            }
        }
        double t = Math.max(1, tokens);
        return new PolicyUpdate(
                new Learner.LossStats(
                        loss / t, clip / t, kl / t, entropy / t, shift / Math.max(1, laterTokens), tokens),
                samplerGap,
                new Learner.OptimStats(gradNorm / Math.max(1, updates), lr, skipped));
    }

    /**
     * The examples in a seeded random order, cut into {@code count} contiguous parts whose sizes differ by at most
     * one; fewer parts when there are fewer examples (no empty mini-batch). One part keeps the original order.
     */
    static List<List<TrainExample>> miniBatches(List<TrainExample> examples, int count, long seed) {
        List<TrainExample> order = new ArrayList<>(examples);
        if (count > 1) {
            Collections.shuffle(order, new SplittableRandom(seed));
        }
        int parts = Math.max(1, Math.min(count, order.size()));
        List<List<TrainExample>> out = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            List<TrainExample> part = order.subList(p * order.size() / parts, (p + 1) * order.size() / parts);
            if (!part.isEmpty()) {
                out.add(List.copyOf(part));
            }
        }
        return out;
    }
}
