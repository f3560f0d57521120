package org.pettingllms.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.pettingllms.core.algo.LrSchedule;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.PolicyRef;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.rollout.RolloutConfig;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.planning.Demonstrations;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.text.CharCodec;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TrainSettings;
import org.pettingllms.torch.text.TextCodec;
import org.pettingllms.core.backend.OptimParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sft}: supervised warm-up of a base model on solver demonstrations of a planning game (all roles'
 * first-turn prompts), deliberately imperfect, then a greedy evaluation, a Hugging Face directory and a model card.
 */
@Command(name = "sft", mixinStandardHelpOptions = true,
        description = "Supervised warm-up of the run's base model on (noisy) solver demonstrations.")
final class SftCommand implements Callable<Integer> {
    @Mixin
    RunOptions runOptions = new RunOptions();

    @Option(names = "--steps", defaultValue = "400", description = "optimizer steps")
    int steps;

    @Option(names = "--batch", defaultValue = "32", description = "problems per step (each gives one demo per role)")
    int batch;

    @Option(names = "--lr", defaultValue = "2e-3", description = "peak learning rate (warmup, then cosine)")
    double lr;

    @Option(names = "--noise", defaultValue = "0.3", description = "fraction of deliberately imperfect answers")
    double noise;

    @Option(names = "--roles", split = ",", description = "train on these roles' demonstrations only (default: all)")
    List<String> roles = new ArrayList<>();

    @Option(names = "--keep", paramLabel = "ROLE=FRACTION", description = "keep a role's demonstration for only"
            + " this fraction of the problems (rehearsal of a skill already learned at a fraction of its cost)")
    java.util.Map<String, Double> keep = new java.util.LinkedHashMap<>();

    @Option(names = "--adopt", defaultValue = "0.5", description = "how often the planner's demonstration copies"
            + " the tool program's printed answer (program mode)")
    double adopt;

    @Option(names = "--eval", defaultValue = "100", description = "test problems for the greedy evaluation")
    int evalProblems;

    @Option(names = "--out", required = true, description = "where to write the model (Hugging Face layout)")
    Path out;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RunSetup setup = runOptions.load();
        RunConfig cfg = setup.config();
        if (adopt < 0 || adopt > 1) {
            throw new IllegalArgumentException("--adopt must be in [0, 1], got " + adopt);
        }
        if (!(setup.task() instanceof PlanningTask<?, ?> task)) {
            throw new IllegalArgumentException("sft makes demonstrations for the planning games only; task "
                    + setup.task().id() + " has none yet");
        }
        String model = cfg.policy().model();
        PolicyRef base = PolicyRef.of(model);
        PolicyMap l1 = PolicyMap.forLevel(Level.L1, task.roles(), model, Set.of());
        PrintWriter o = spec.commandLine().getOut();
        long start = System.nanoTime();
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, l1);
             TorchLearner learner = new TorchLearner(engine.registry(),
                     new TrainSettings(cfg.train().microBatchSize(), false))) {
            LrSchedule schedule = new LrSchedule(LrSchedule.Kind.COSINE, lr, Math.max(1, steps / 20), steps, 0.1);
            OptimParams adamW = OptimParams.adamW(lr, 0.01, 1.0);
            TextCodec codec = engine.codec(model);
            var problems = task.problems(cfg.run().seed());
            SplittableRandom rng = new SplittableRandom(cfg.run().seed());
            o.printf("sft %s on %s | %s parameters | %d steps x %d problems | noise %.2f%n", model, task.id(),
                    engine.registry().model(model).parameterCount(), steps, batch, noise);
            o.flush();
            double emaLoss = Double.NaN;
            ProgressBar bar = new ProgressBar("sft");
            for (int step = 0; step < steps; step++) {
                List<TrainExample> examples = new ArrayList<>();
                for (Problem p : problems.problems(Split.TRAIN, (long) step * batch, batch)) {
                    for (Demonstrations.Demo d : Demonstrations.of(task, p, cfg.task().style(), noise, adopt, rng)) {
                        if (!roles.isEmpty() && !roles.contains(d.role())) {
                            continue;
                        }
                        if (keep.containsKey(d.role()) && rng.nextDouble() >= keep.get(d.role())) {
                            continue;
                        }
                        int[] answer = codec.encode(d.answer());
                        int[] completion = java.util.Arrays.copyOf(answer, answer.length + 1);
                        completion[answer.length] = codec.stopTokenIds()[0]; // learn to stop
                        examples.add(new TrainExample(IntSeq.of(codec.encode(d.prompt().text())),
                                IntSeq.of(completion), FloatSeq.of(new float[completion.length]), 0));
                    }
                }
                // similar lengths share a micro-batch: a short planner answer is not padded to a long program
                examples.sort(java.util.Comparator.comparingInt(e -> e.promptTokens().size()
                        + e.completionTokens().size()));
                double loss = learner.forwardBackwardSupervised(base, examples).loss();
                learner.optimStep(base, adamW.withLearningRate(schedule.lr(step)));
                emaLoss = Double.isNaN(emaLoss) ? loss : 0.95 * emaLoss + 0.05 * loss;
                if ((step + 1) % Math.max(1, steps / 20) == 0 || step == steps - 1) {
                    bar.clear();
                    o.printf("step %d/%d | loss %.4f | %.0f s%n", step + 1, steps, emaLoss,
                            (System.nanoTime() - start) / 1e9);
                    o.flush();
                }
                bar.update(step + 1, steps);
            }
            learner.publish(base);
            double seconds = (System.nanoTime() - start) / 1e9;
            RolloutEngine rollouts = new RolloutEngine(engine.sampler());
            RolloutConfig evalCfg = cfg.validationRollout(1);
            List<Problem> test = problems.problems(Split.TEST, 0, evalProblems);
            double mas = RolloutStats.of(rollouts.run(task, test, l1, evalCfg), task.roles()).successRate();
            var single = new PlanningTask<>(task.game(), List.of(PlanningTask.PLAN), task.maxTurns());
            double sa = RolloutStats.of(rollouts.run(single, test,
                    PolicyMap.forLevel(Level.L0, single.roles(), model, Set.of()), evalCfg), single.roles()).successRate();
            engine.registry().model(model).save(out);
            if (codec instanceof CharCodec) {
                CharCodec.writeTokenizerFiles(out);
            }
            Files.writeString(out.resolve("README.md"), ModelCard.text(task.id(), model, cfg.run().seed(),
                    engine.registry().model(model).parameterCount(), steps, batch, lr, noise, seconds, sa, mas,
                    evalProblems, String.join(" ", spec.commandLine().getParseResult().originalArgs()).replaceFirst("^sft ", "")));
            o.printf("greedy success on %d test problems: single agent %.1f%%, tool+plan %.1f%% | saved %s%n",
                    evalProblems, 100 * sa, 100 * mas, out);
            o.flush();
        }
        return 0;
    }
}
