package org.pettingllms.core.config;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.GroupFilter;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.algo.LrSchedule;
import org.pettingllms.core.algo.OffPolicyCorrection;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.PromptStyle;

/**
 * A run, as loaded from YAML over the defaults in {@code defaults.yaml} (see {@link ConfigLoader}). Every
 * section is a small immutable record; range checks live in the compact constructors.
 */
public record RunConfig(
        Run run,
        TaskSpec task,
        Policy policy,
        Rollout rollout,
        Algo algo,
        Train train,
        Engine engine,
        Validation validation,
        LearnerSpec learner) {
    public RunConfig {
        if (algo.stateGroups().enabled() && rollout.mode() != RolloutConfig.Mode.PARALLEL) {
            throw new IllegalArgumentException("algo.stateGroups.enabled needs rollout.mode: parallel (independent"
                    + " trajectories; tree sampling already groups the answers to one prompt)");
        }
    }

    /**
     * @param seed the seed of every random choice in the run: its problems (runs with different seeds share none),
     *             LoRA initialisation, sampling and mini-batches; 0 to {@link #MAX_SEED}
     */
    public record Run(String name, long seed, String outputDir) {
        /** Problem seeds hold the run seed in 29 bits beside a 32-bit problem index (SeededProblems). */
        public static final long MAX_SEED = (1L << 29) - 1;

        public Run {
            if (seed < 0 || seed > MAX_SEED) {
                throw new IllegalArgumentException("seed must be 0 to " + MAX_SEED + ", got " + seed);
            }
        }
    }

    /**
     * @param name     task name, for example {@code plan-path}
     * @param roles    roles in turn order; empty means the task's own roles (e.g. {@code [plan]} for L0)
     * @param options  task-specific options, checked by the task's factory
     */
    public record TaskSpec(
            String name, PromptStyle style, int maxTurns, List<String> roles, Map<String, Object> options) {
        public TaskSpec {
            if (maxTurns < 1) {
                throw new IllegalArgumentException("maxTurns must be >= 1, got " + maxTurns);
            }
            roles = List.copyOf(roles);
            // sorted: Map.copyOf iterates in an order drawn anew in every JVM, which made run.json and the table's
            // config hashes differ from run to run for the same config
            options = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(Map.copyOf(options)));
        }
    }

    /** @param model model name or directory; @param untrainedRoles roles that act but do not learn */
    public record Policy(Level level, String model, List<String> untrainedRoles) {
        public Policy {
            untrainedRoles = List.copyOf(untrainedRoles);
        }
    }

    public record Sampling(double temperature, int topK, double topP, int maxTokens, List<String> stop) {
        public Sampling {
            stop = List.copyOf(stop);
            new SamplingParams(temperature, topK, topP, maxTokens, stop, 0); // range checks
        }

        public SamplingParams toParams(long seed) {
            return new SamplingParams(temperature, topK, topP, maxTokens, stop, seed);
        }
    }

    /**
     * @param problemsPerStep problems rolled out per training step (E)
     * @param alpha           team-reward weight of {@code r = alpha * team + local}
     */
    /**
     * @param servers        inference servers that sample the rollouts (base URLs); empty: the embedded engine
     * @param protocol       the servers' protocol: {@code vllm} ({@code /v1/completions}) or {@code sglang}
     *                       ({@code /generate})
     * @param servedModel    the base model's id on the servers (default: {@code policy.model})
     * @param timeoutSeconds deadline of one request to a server
     * @param probeTolerance mean absolute logprob gap allowed between a server and the learner after an adapter
     *                       load (the stale-weight guard)
     */
    public record Rollout(
            RolloutConfig.Mode mode,
            int k,
            boolean greedySelect,
            int problemsPerStep,
            int concurrency,
            String batching,
            double alpha,
            double localWeight,
            double processWeight,
            Sampling sampling,
            List<String> servers,
            String protocol,
            String servedModel,
            int timeoutSeconds,
            double probeTolerance) {
        public Rollout {
            servers = servers == null ? List.of() : List.copyOf(servers);
            if (k < 1) {
                throw new IllegalArgumentException("k must be >= 1, got " + k);
            }
            if (problemsPerStep < 1 || concurrency < 1) {
                throw new IllegalArgumentException("problemsPerStep and concurrency must be >= 1");
            }
            if (!batching.equals("lockstep") && !batching.equals("dynamic")) {
                throw new IllegalArgumentException("batching must be lockstep or dynamic, got '" + batching + "'");
            }
            if (!protocol.equals("vllm") && !protocol.equals("sglang")) {
                throw new IllegalArgumentException("protocol must be vllm or sglang, got '" + protocol + "'");
            }
            if (timeoutSeconds < 1 || !(probeTolerance > 0)) {
                throw new IllegalArgumentException("need timeoutSeconds >= 1 and probeTolerance > 0");
            }
            for (String s : servers) {
                if (!s.matches("https?://[^\\s/]+(:\\d+)?/?")) {
                    throw new IllegalArgumentException("servers: '" + s + "' is not a base URL like http://host:8000");
                }
            }
        }

        public RolloutConfig toRolloutConfig(PromptStyle style, long seed) {
            return new RolloutConfig(
                    mode, k, greedySelect, style, sampling.toParams(seed), mix(), concurrency, lockstep());
        }

        /** {@code batching: lockstep}: the sampler's batches follow from the episodes, not their timing. */
        public boolean lockstep() {
            return batching.equals("lockstep");
        }

        public RewardMix mix() {
            return new RewardMix(alpha, localWeight, processWeight);
        }
    }

    /**
     * @param groupFilter none, zero-variance, mean:&lt;ratio&gt; or std:&lt;ratio&gt;
     * @param stateGroups GiGPO's step groups added to the episode advantage (parallel rollouts)
     */
    public record Algo(Grouping groupBy, boolean normalizeByStd, String groupFilter, StateGrouping stateGroups) {
        public Algo {
            GroupFilter.parse(groupFilter); // fails early with the allowed forms
        }

        /**
         * State-grouped step advantages ({@code StateGroups}): {@code A = A_episode + weight * A_step}.
         *
         * @param gamma      discount of the step returns
         * @param similarity 1: steps group when the same role was shown the same prompt; below 1: when the prompt
         *                   texts are at least this similar (1 - normalised edit distance)
         */
        public record StateGrouping(boolean enabled, double weight, double gamma, double similarity) {
            public StateGrouping {
                if (!(weight >= 0) || !(gamma >= 0 && gamma <= 1) || !(similarity > 0 && similarity <= 1)) {
                    throw new IllegalArgumentException(
                            "need weight >= 0, gamma in [0, 1] and similarity in (0, 1], got " + weight + ", " + gamma
                                    + ", " + similarity);
                }
            }
        }

        public GroupFilter filter() {
            return GroupFilter.parse(groupFilter);
        }
    }

    /**
     * The policy update (AT-GRPO.md, "Policy loss"): PPO-clip, AdamW, schedule, and the run's rhythm.
     *
     * @param steps           training steps (the real horizon of the cosine schedule)
     * @param miniBatches     optimizer steps per training step and epoch: each policy's samples, shuffled, are split
     *                        into this many mini-batches (verl's {@code ppo_mini_batch_size} as a count)
     * @param epochs          passes over each step's samples (PPO epochs; one by default, as in the paper)
     * @param checkpointEvery steps between checkpoints (0: only at the end)
     * @param validateEvery   steps between validations (0: never during training)
     * @param async           rollouts overlapped with updates (off by default)
     */
    public record Train(
            int steps,
            int miniBatches,
            int epochs,
            double learningRate,
            LrSchedule.Kind schedule,
            int warmupSteps,
            double minLrRatio,
            double weightDecay,
            double maxGradNorm,
            int microBatchSize,
            LossConfig.Aggregation aggregation,
            double clipLow,
            double clipHigh,
            double klCoef,
            double entropyCoef,
            int checkpointEvery,
            int validateEvery,
            Async async) {
        public Train {
            if (steps < 1
                    || miniBatches < 1
                    || epochs < 1
                    || microBatchSize < 1
                    || checkpointEvery < 0
                    || validateEvery < 0) {
                throw new IllegalArgumentException(
                        "need steps >= 1, miniBatches >= 1, epochs >= 1, microBatchSize >= 1, "
                                + "checkpointEvery >= 0 and validateEvery >= 0");
            }
            lossConfig(clipLow, clipHigh, aggregation, klCoef, entropyCoef); // range checks
            lrSchedule(schedule, learningRate, warmupSteps, steps, minLrRatio, miniBatches, epochs);
        }

        public LossConfig loss() {
            return lossConfig(clipLow, clipHigh, aggregation, klCoef, entropyCoef);
        }

        public LrSchedule lr() {
            return lrSchedule(schedule, learningRate, warmupSteps, steps, minLrRatio, miniBatches, epochs);
        }

        /** Optimizer steps one training step plans per policy: {@code epochs x miniBatches}. */
        public int updatesPerStep() {
            return Math.multiplyExact(miniBatches, epochs);
        }

        /** The parameters of optimizer step {@code update} (0-based, counted as {@link #lr()} counts them). */
        public OptimParams optim(long update) {
            return OptimParams.adamW(lr().lr((int) Math.min(Integer.MAX_VALUE, update)), weightDecay, maxGradNorm);
        }

        private static LossConfig lossConfig(double lo, double hi, LossConfig.Aggregation a, double kl, double ent) {
            return new LossConfig(lo, hi, a, kl, ent);
        }

        /**
         * The schedule in optimizer steps: warmup and horizon, given in training steps, scale
         * with the optimizer steps per training step.
         */
        private static LrSchedule lrSchedule(
                LrSchedule.Kind k, double lr, int warmup, int steps, double min, int miniBatches, int epochs) {
            int updates = Math.multiplyExact(miniBatches, epochs);
            return new LrSchedule(k, lr, Math.min(warmup, steps) * updates, Math.multiplyExact(steps, updates), min);
        }
    }

    /**
     * Asynchronous training (docs/USAGE.md, "Asynchronous training"): the rollouts of step k run while earlier steps
     * train, on the weights of step {@code k - maxStaleness} (never older; the steps after a validation or a
     * checkpoint start again from the weights of that moment), and the loss corrects for the gap.
     *
     * @param enabled       off: every step samples, then trains (the synchronous loop, unchanged)
     * @param maxStaleness  eta, in training steps: how many updates a step's samples may lag the weights they train;
     *                      0 is synchronous
     * @param correction    decoupled: AReaL's decoupled PPO (ratio to the proximal policy, behaviour importance weight
     *                      per token); mask: keep the ratio to the sampling logprobs and drop the tokens whose
     *                      probability moved more than {@code maskThreshold} in the direction their advantage
     *                      pushes (prime-rl's rule); none: plain PPO on stale samples
     * @param weightCap     decoupled: tokens whose behaviour weight {@code pi_prox / pi_behav} exceeds it are dropped
     *                      (AReaL's {@code behav_imp_weight_cap}); 0: no cap
     * @param maskThreshold mask: the probability change, in [0, 1], beyond which a token is dropped
     */
    public record Async(
            boolean enabled,
            int maxStaleness,
            OffPolicyCorrection.Kind correction,
            double weightCap,
            double maskThreshold) {
        public Async {
            if (maxStaleness < 0) {
                throw new IllegalArgumentException("maxStaleness must be >= 0 (0: synchronous), got " + maxStaleness);
            }
            if (!(weightCap == 0 || weightCap > 1) || !Double.isFinite(weightCap)) {
                throw new IllegalArgumentException("weightCap must be 0 (no cap) or > 1, got " + weightCap);
            }
            if (!(maskThreshold >= 0 && maskThreshold <= 1)) {
                throw new IllegalArgumentException("maskThreshold must be in [0, 1], got " + maskThreshold);
            }
        }

        /** The loss's correction, as {@link OffPolicyCorrection} takes it. */
        public OffPolicyCorrection.Settings settings() {
            return new OffPolicyCorrection.Settings(correction, weightCap, maskThreshold);
        }
    }

    /**
     * The embedded engine: device, batching, the sampler thread's PyTorch threads and the shape of fresh LoRA
     * adapters.
     */
    public record Engine(
            String device,
            String dtype,
            int maxBatchRows,
            int samplerThreads,
            int loraRank,
            double loraAlpha,
            List<String> loraTargets,
            boolean trainVisionTower,
            int learnerThreads) {
        public Engine {
            if (learnerThreads < 0) {
                throw new IllegalArgumentException(
                        "learnerThreads must be >= 0 (0: PyTorch's default), got " + learnerThreads);
            }
            loraTargets = List.copyOf(loraTargets);
            if (!dtype.equals("fp32") && !dtype.equals("bf16")) {
                throw new IllegalArgumentException("dtype must be fp32 or bf16, got '" + dtype + "'");
            }
            if (maxBatchRows < 1 || samplerThreads < 1 || loraRank < 1 || loraAlpha <= 0 || loraTargets.isEmpty()) {
                throw new IllegalArgumentException("need maxBatchRows >= 1, samplerThreads >= 1, loraRank >= 1, "
                        + "loraAlpha > 0 and at least one LoRA target");
            }
        }

        /** These settings on another device. */
        public Engine onDevice(String device) {
            return new Engine(
                    device,
                    dtype,
                    maxBatchRows,
                    samplerThreads,
                    loraRank,
                    loraAlpha,
                    loraTargets,
                    trainVisionTower,
                    learnerThreads);
        }
    }

    /**
     * Where the updates run: this process's engine ({@code embedded}), or a training service such as a Tinker API
     * ({@code kind: tinker}) at {@code url}, which then also samples the rollouts. Kinds are learner backends found
     * as services (the text module's {@code LearnerBackends}), which check the keys they use.
     *
     * @param baseModel the service's name of the base model; empty: {@code policy.model}
     */
    public record LearnerSpec(String kind, String url, String baseModel, int timeoutSeconds) {
        public LearnerSpec {
            if (kind.isBlank()) {
                throw new IllegalArgumentException("kind must name a learner backend (embedded, tinker, ...)");
            }
            if (timeoutSeconds < 1) {
                throw new IllegalArgumentException("timeoutSeconds must be >= 1, got " + timeoutSeconds);
            }
        }
    }

    /**
     * How validation rolls out (AT-GRPO.md, "Validation"): no tree sampling, {@code samplesPerProblem} independent
     * trajectories per problem with the validation sampling parameters, the training reward mix.
     */
    public RolloutConfig validationRollout(long seed) {
        return new RolloutConfig(
                RolloutConfig.Mode.PARALLEL,
                validation.samplesPerProblem(),
                false,
                task.style(),
                validation.sampling().toParams(seed),
                rollout.mix(),
                rollout.concurrency(),
                rollout.lockstep());
    }

    /** Validation: no tree sampling; {@code samplesPerProblem} trajectories per problem. */
    /**
     * @param firstProblem index of the first problem of the split evaluated: the validation split in training and by
     *                     default in {@code evaluate}, the test split with {@code evaluate --split test} and in
     *                     {@code table}
     */
    public record Validation(int problems, long firstProblem, int samplesPerProblem, Sampling sampling) {
        public Validation {
            if (problems < 0 || firstProblem < 0 || samplesPerProblem < 1) {
                throw new IllegalArgumentException("need problems >= 0, firstProblem >= 0 and samplesPerProblem >= 1");
            }
        }
    }
}
