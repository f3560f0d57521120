package org.pettingllms.core.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.pettingllms.core.algo.Advantages;
import org.pettingllms.core.algo.PolicyRouter;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.algo.StateGroups;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.Rollouts;
import org.pettingllms.core.rollout.StepRecord;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.util.Seeds;

/**
 * The training loop of AT-GRPO (AT-GRPO.md, Algorithm 1). {@link #step} reads top to bottom: {@link #rollout}
 * (publish weights, problems, tree rollouts) then {@link #train} (groups, filter, advantages, routing, per-policy
 * updates, metrics, validation, checkpoint). Strictly on-policy by default: every sample must come from the weights
 * published at the start of its step; with {@code train.async} a step's rollouts may run on the weights of a bounded
 * number of steps before ({@link AsyncSteps}), and the loss corrects for it ({@link OffPolicy}).
 */
public final class Trainer {
    private final RunConfig cfg;
    private final Rollouts rollouts;
    private final ProblemSource problems;
    private final PolicyMap policies;
    private final Learner learner;
    private final MetricsLog metrics;
    private final Path runDir;
    // TensorBoard's events beside metrics.jsonl: a new file each time this trainer starts (or resumes) a run
    private TensorBoardLog tensorBoard;
    private final Checkpoints checkpoints;
    private final Transcripts transcripts;

    public Trainer(
            RunConfig cfg,
            Task<?> task,
            ProblemSource problems,
            PolicyMap policies,
            Sampler sampler,
            Learner learner,
            Path runDir) {
        this(cfg, task, problems, policies, sampler, learner, runDir, RolloutProgress.NONE);
    }

    /** @param progress told as rollout and validation episodes finish (a console progress bar) */
    public Trainer(
            RunConfig cfg,
            Task<?> task,
            ProblemSource problems,
            PolicyMap policies,
            Sampler sampler,
            Learner learner,
            Path runDir,
            RolloutProgress progress) {
        this(cfg, Rollouts.of(task, sampler, progress), problems, policies, learner, runDir);
    }

    /** Training on any rollouts: a task's, or an agent program's ({@link Rollouts}). */
    public Trainer(
            RunConfig cfg,
            Rollouts rollouts,
            ProblemSource problems,
            PolicyMap policies,
            Learner learner,
            Path runDir) {
        this.cfg = cfg;
        this.rollouts = rollouts;
        this.problems = problems;
        this.policies = policies;
        this.learner = learner;
        try {
            Files.createDirectories(runDir.resolve("checkpoints"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the run directory " + runDir, e);
        }
        this.metrics = new MetricsLog(runDir.resolve("metrics.jsonl"));
        this.runDir = runDir;
        this.checkpoints = new Checkpoints(runDir.resolve("checkpoints"), learner, policies);
        this.transcripts = new Transcripts(runDir.resolve("transcripts.jsonl"));
    }

    /** Runs steps {@code from .. steps-1}, or resumes after the last checkpoint; returns the last step's metrics. */
    public StepReport run(boolean resume) throws IOException {
        return run(resume, m -> {});
    }

    /**
     * As {@link #run(boolean)}, handing each step's metrics to {@code onStep} (console progress). With
     * {@code train.async} on, the rollouts run on their own thread ahead of the updates ({@link AsyncSteps}).
     */
    public StepReport run(boolean resume, Consumer<StepReport> onStep) throws IOException {
        int from = resume ? checkpoints.restoreLatest() + 1 : 0;
        metrics.truncateFrom(from);
        transcripts.truncateFrom(from);
        tensorBoard = TensorBoardLog.start(runDir, from);
        if (cfg.train().async().enabled() && from < cfg.train().steps()) {
            try (AsyncSteps async = new AsyncSteps(this, cfg, learner, from)) {
                return async.run(onStep);
            }
        }
        StepReport last = null;
        for (int step = from; step < cfg.train().steps(); step++) {
            last = step(step);
            onStep.accept(last);
        }
        return last;
    }

    /** One training step: its rollouts, then its update. */
    public StepReport step(int step) throws IOException {
        long t0 = System.nanoTime();
        StepRollout r = rollout(step, () -> {});
        long t1 = System.nanoTime();
        return train(step, r, new StepTiming(t0, t1), OffPolicy.NONE);
    }

    /**
     * Steps 1-3: publish, problems, rollouts. Strictly on-policy: the sampler uses the latest weights of every trained
     * policy, and every sample must carry the version published here.
     *
     * @param published told once the weights are published, before any sampling
     */
    StepRollout rollout(int step, Runnable published) {
        long t0 = System.nanoTime();
        rollouts.beginStep(step);
        // 1. the sampler uses the latest weights of every trained policy
        Map<PolicyRef, Long> versions = new LinkedHashMap<>();
        policies.trainedPolicies().forEach(p -> versions.put(p, learner.publish(p)));
        published.run();
        // 2. this step's problems: a fixed slice of the training split, so a resumed run sees the same data
        int e = cfg.rollout().problemsPerStep();
        List<Problem> batch = problems.problems(ProblemSource.Split.TRAIN, (long) step * e, e);
        // 3. tree rollouts (or parallel sampling for the GRPO baseline); rewards are mixed in the engine
        RolloutResult rollout = rollouts.run(batch, policies, rolloutConfig(step));
        checkOnPolicy(rollout.samples(), versions);
        return new StepRollout(rollout, rollouts.drainMetrics(), (System.nanoTime() - t0) / 1e9);
    }

    /** Steps 4-8 on a step's rollouts: groups, advantages, routing, updates, metrics, validation, checkpoint. */
    StepReport train(int step, StepRollout r, StepTiming timing, OffPolicy offPolicy) throws IOException {
        RolloutResult rollout = r.result();
        // 4. groups by (problem, role, turn) or an ablation; optional filter
        Map<GroupKey, List<Sample>> groups =
                cfg.algo().filter().apply(cfg.algo().groupBy().group(rollout.samples()));
        // 5. GRPO advantages per group; optionally plus GiGPO's state-grouped step advantages
        List<ScoredSample> scored = Advantages.compute(groups, cfg.algo().normalizeByStd());
        RunConfig.Algo.StateGrouping sg = cfg.algo().stateGroups();
        Map<Sample, Double> stepAdvantages = null;
        if (sg.enabled()) {
            List<StateGroups.Trajectory> trajectories = rollout.episodes().stream()
                    .map(e -> new StateGroups.Trajectory(
                            e.problem().id(),
                            e.samples(),
                            e.path().stream().map(StepRecord::mixedReward).toList()))
                    .toList();
            stepAdvantages = StateGroups.stepAdvantages(
                    trajectories, sg.gamma(), sg.similarity(), cfg.algo().normalizeByStd());
            scored = StateGroups.combine(scored, stepAdvantages, sg.weight());
        }
        // 6. each sample to its role's policy; untrained roles dropped
        Map<PolicyRef, List<ScoredSample>> routed = PolicyRouter.route(scored, policies);
        // 7. per policy: epochs x mini-batches of PPO-clip updates (an adapter policy updates only its adapter);
        // samples of older weights are corrected first (asynchronous training)
        Map<PolicyRef, Learner.LossStats> losses = new LinkedHashMap<>();
        Map<PolicyRef, Learner.OptimStats> optims = new LinkedHashMap<>();
        Map<PolicyRef, Double> samplerGaps = new LinkedHashMap<>();
        List<PolicyRef> trained = List.copyOf(policies.trainedPolicies());
        for (Map.Entry<PolicyRef, List<ScoredSample>> en : routed.entrySet()) {
            PolicyRef policy = en.getKey();
            if (!en.getValue().isEmpty()) {
                List<TrainExample> examples =
                        en.getValue().stream().map(ScoredSample::toTrainExample).toList();
                examples = offPolicy.correct(learner, policy, examples);
                // seeded by the policy's place, not its name: moving the model directory keeps a run reproducible
                PolicyUpdate u = PolicyUpdate.run(
                        learner,
                        policy,
                        examples,
                        cfg.train(),
                        step,
                        Seeds.derive(cfg.run().seed(), "minibatches", step, trained.indexOf(policy)),
                        offPolicy::beforeOptimizerStep);
                losses.put(policy, u.loss());
                optims.put(policy, u.optim());
                samplerGaps.put(policy, u.samplerGap());
            }
        }
        long t2 = System.nanoTime();
        // 8. metrics, periodic validation, checkpoint
        Map<String, Double> m = new LinkedHashMap<>();
        m.putAll(StepMetrics.rollout("", rollout, rollouts.roles()));
        m.putAll(r.taskMetrics());
        m.putAll(StepMetrics.training(rollout.samples(), groups, scored, losses, samplerGaps, optims));
        if (stepAdvantages != null) {
            m.putAll(StepMetrics.stateGroups(stepAdvantages));
        }
        boolean last = step == cfg.train().steps() - 1;
        if (due(step, cfg.train().validateEvery()) || (last && cfg.validation().problems() > 0)) {
            RolloutResult val = validate();
            m.putAll(StepMetrics.rollout(Metric.VAL, val, rollouts.roles()));
            rollouts.drainMetrics().forEach((k, v) -> m.put(Metric.VAL + k, v));
            transcripts.append(
                    step, val.episodes().subList(0, Math.min(3, val.episodes().size())));
        }
        long t3 = System.nanoTime();
        m.put(Metric.ROLLOUT_S, r.seconds()); // on the rollouts' own thread when asynchronous
        m.put(Metric.UPDATE_S, (t2 - timing.updateStart()) / 1e9);
        m.put(Metric.VALIDATE_S, (t3 - t2) / 1e9);
        m.put(Metric.STEP_S, (t3 - timing.start()) / 1e9);
        m.put(Metric.TOKENS_PER_S, m.get(Metric.COMPLETION_TOKENS) / Math.max(1e-9, (t2 - timing.start()) / 1e9));
        m.putAll(offPolicy.metrics());
        StepReport report = new StepReport(step, m);
        metrics.append(report);
        if (tensorBoard == null) {
            tensorBoard = TensorBoardLog.start(runDir, step);
        }
        tensorBoard.append(report);
        if (due(step, cfg.train().checkpointEvery()) || last) {
            checkpoints.save(step);
        }
        return report;
    }

    /**
     * Validation (AT-GRPO.md): no tree sampling, validation sampling parameters, the validation split (never the
     * test split: what training watches and what choices are tuned on is not what claims are made on), on the
     * weights after the step's update, published first.
     */
    public RolloutResult validate() {
        // the weights after this step's update: a sampler that reads published weights (remote servers, a Tinker
        // service) would otherwise validate the weights the step started from
        policies.trainedPolicies().forEach(learner::publish);
        RolloutConfig rc = cfg.validationRollout(Seeds.derive(cfg.run().seed(), "validation"));
        return rollouts.run(
                problems.problems(
                        ProblemSource.Split.VALIDATION,
                        cfg.validation().firstProblem(),
                        cfg.validation().problems()),
                policies,
                rc);
    }

    private RolloutConfig rolloutConfig(int step) {
        return cfg.rollout()
                .toRolloutConfig(cfg.task().style(), Seeds.derive(cfg.run().seed(), "rollout", step));
    }

    static boolean due(int step, int every) {
        return every > 0 && (step + 1) % every == 0;
    }

    /**
     * Every trained sample must come from the weights published for its policy at the start of the step: the
     * version a sample carries is the one its sampler read from the weights it used, so a sampler on old or
     * half-updated weights (a server that missed an adapter load) stops the step here.
     */
    private void checkOnPolicy(List<Sample> samples, Map<PolicyRef, Long> versions) {
        for (Sample s : samples) {
            Long v = versions.get(s.policy());
            if (v != null && s.completion().weightVersion() != v) {
                throw new IllegalStateException("off-policy sample: role '" + s.role() + "' of " + s.problemId()
                        + " was sampled with weight version " + s.completion().weightVersion() + " of " + s.policy()
                        + ", but version " + v + " was published for this step");
            }
        }
    }
}
