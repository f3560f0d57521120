package org.pettingllms.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.core.workflow.DesignReport;
import org.pettingllms.core.workflow.DesignedSystem;
import org.pettingllms.text.TextCodec;
import org.pettingllms.text.TextCodecs;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.engine.SupervisedTraining;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TrainSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sft}: supervised warm-up of a base model on the task's demonstrations ({@link SupervisedTraining}; the
 * planning games' solver demonstrations, the dataset tasks' reference answers, any task's scripted team),
 * deliberately imperfect, then a greedy evaluation of the team and of the main role alone, a Hugging Face directory
 * and a model card.
 */
@Command(
        name = "sft",
        mixinStandardHelpOptions = true,
        description = "Supervised warm-up of the run's base model on the task's (noisy) demonstrations.")
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

    @Option(
            names = "--keep",
            paramLabel = "ROLE=FRACTION",
            description = "keep a role's demonstration for only"
                    + " this fraction of the problems (rehearsal of a skill already learned at a fraction of its cost)")
    Map<String, Double> keep = new LinkedHashMap<>();

    @Option(
            names = "--adopt",
            defaultValue = "0.5",
            description = "how often a later role's demonstration copies"
                    + " an earlier role's answer (the planner adopting what the tool program printed)")
    double adopt;

    @Option(
            names = "--alone",
            defaultValue = "0",
            description = "for this fraction of the problems, also the main"
                    + " role's demonstration alone (the single agent's prompt, no other role's answer), so that the single"
                    + " agent is a weak player of its own prompt")
    double alone;

    @Option(
            names = "--withhold-correct",
            description =
                    "demonstrate only the flawed programs of a program-writing tool's catalog (each wrong in one"
                            + " place, in equal shares): the correct solver never appears, so reinforcement learning must find it")
    boolean withholdCorrect;

    @Option(
            names = "--turns",
            defaultValue = "1",
            description = "demonstrate up to this many turns of each episode (later turns' prompts show the board the"
                    + " earlier demonstrated moves left), where the task can")
    int turns;

    @Option(
            names = "--habits",
            defaultValue = "0",
            description = "how often each of the task's habits is demonstrated wrong, where it has some (a Verilog"
                    + " designer's clock edge and reset level: each place drawn apart, per episode), so that"
                    + " reinforcement learning has a choice to make that is right on every problem")
    double habits;

    @Option(names = "--eval", defaultValue = "100", description = "validation problems for the greedy evaluation")
    int evalProblems;

    @Option(names = "--out", required = true, description = "where to write the model (Hugging Face layout)")
    Path out;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RunSetup setup = runOptions.load();
        RunConfig cfg = setup.config();
        Map<String, String> env = Main.env(spec);
        steps = Smoke.cap(env, steps, 2);
        batch = Smoke.cap(env, batch, 2);
        evalProblems = Smoke.cap(env, evalProblems, 2);
        if (adopt < 0 || adopt > 1 || noise < 0 || noise > 1) {
            throw new IllegalArgumentException("--adopt and --noise must be in [0, 1], got " + adopt + ", " + noise);
        }
        if (setup.source() instanceof DesignedSystem system) {
            return designed(setup, system);
        }
        Task<?> task = setup.task();
        if (!Demonstrations.available(task)) {
            throw new IllegalArgumentException("task " + task.id() + " offers no demonstrations (its task class "
                    + "implements neither Demonstrations nor ScriptedPlay)");
        }
        if (turns < 1) {
            throw new IllegalArgumentException("--turns must be at least 1, got " + turns);
        }
        if (habits < 0 || habits > 1) {
            throw new IllegalArgumentException("--habits must be in [0, 1], got " + habits);
        }
        if (alone < 0 || alone > 1) {
            throw new IllegalArgumentException("--alone must be in [0, 1], got " + alone);
        }
        RunConfig.TaskSpec t = cfg.task();
        Task<?> single = Tasks.create(
                new RunConfig.TaskSpec(t.name(), t.style(), t.maxTurns(), List.of(task.mainRole()), t.options()));
        String model = cfg.policy().model();
        PolicyRef base = PolicyRef.of(model);
        PolicyMap l1 = PolicyMap.forLevel(Level.L1, task.roles(), model, Set.of());
        PrintWriter o = spec.commandLine().getOut();
        long start = System.nanoTime();
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, l1);
                TorchLearner learner = learner(engine, cfg)) {
            TextCodec codec = engine.codec(model);
            var problems = task.problems(cfg.run().seed());
            o.printf(
                    "sft %s on %s | %s parameters | %d steps x %d problems | noise %.2f%n",
                    model, task.id(), engine.registry().model(model).parameterCount(), steps, batch, noise);
            o.flush();
            ProgressBar bar = new ProgressBar("sft");
            var settings = new SupervisedTraining.Settings(
                    steps,
                    batch,
                    lr,
                    new Demonstrations.Settings(noise, adopt, withholdCorrect, turns, habits),
                    roles,
                    keep,
                    alone);
            SupervisedTraining.run(
                    task,
                    single,
                    problems,
                    cfg.task().style(),
                    learner,
                    base,
                    codec,
                    settings,
                    cfg.run().seed(),
                    progress(o, bar, start));
            double seconds = (System.nanoTime() - start) / 1e9;
            RolloutEngine rollouts = new RolloutEngine(engine.sampler());
            RolloutConfig evalCfg = cfg.validationRollout(1);
            List<Problem> test = problems.problems(Split.VALIDATION, 0, evalProblems); // choices are made on it
            double team = RolloutStats.of(rollouts.run(task, test, l1, evalCfg), task.roles())
                    .successRate();
            double aloneSuccess = RolloutStats.of(
                            rollouts.run(
                                    single,
                                    test,
                                    PolicyMap.forLevel(Level.L0, single.roles(), model, Set.of()),
                                    evalCfg),
                            single.roles())
                    .successRate();
            save(engine, model, codec, cfg, task.id(), seconds, task.mainRole(), aloneSuccess, team);
            o.printf(
                    "greedy success on %d validation problems: %s alone %.1f%%, team %.1f%% | saved %s%n",
                    evalProblems, task.mainRole(), 100 * aloneSuccess, 100 * team, out);
            o.flush();
        }
        return 0;
    }

    /** Writes the trained model, its tokenizer and its card ({@link ModelCard}) to {@code out}. */
    private void save(
            EmbeddedEngine engine,
            String model,
            TextCodec codec,
            RunConfig cfg,
            String id,
            double seconds,
            String mainRole,
            double aloneSuccess,
            double team)
            throws IOException {
        engine.registry().model(model).save(out);
        if (!TextCodecs.writeCharTokenizer(codec, out)) {
            copyTokenizer(Path.of(model), out);
        }
        Files.writeString(
                out.resolve("README.md"),
                ModelCard.text(
                        engine.registry().model(model).config().modelType(),
                        id,
                        model,
                        cfg.run().seed(),
                        engine.registry().model(model).parameterCount(),
                        steps,
                        batch,
                        lr,
                        noise,
                        seconds,
                        mainRole,
                        aloneSuccess,
                        team,
                        evalProblems,
                        String.join(" ", spec.commandLine().getParseResult().originalArgs())
                                .replaceFirst("^sft ", "")));
    }

    /**
     * The warm-up of a designed system (docs/WORKFLOWS.md, "The designer's warm-up"): one model learns the designer's
     * random valid designs and the scripted executor's replies in the calls of those designs; then the greedy
     * success of the designed system (its designer and executors on that model) on the validation problems.
     */
    private int designed(RunSetup setup, DesignedSystem system) throws IOException {
        RunConfig cfg = setup.config();
        if (!system.hasDemonstrations()) {
            throw new IllegalArgumentException("design task " + system.id() + " offers no warm-up demonstrations");
        }
        if (alone > 0 || withholdCorrect || turns != 1 || habits != 0) {
            throw new IllegalArgumentException("--alone, --withhold-correct, --turns and --habits are options of a"
                    + " task's team; a designed system's warm-up takes --noise, --adopt, --roles and --keep");
        }
        String model = cfg.policy().model();
        PolicyRef base = PolicyRef.of(model);
        PolicyMap l1 = PolicyMap.forLevel(Level.L1, system.roles(), model, Set.of());
        PrintWriter o = spec.commandLine().getOut();
        long start = System.nanoTime();
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, l1);
                TorchLearner learner = learner(engine, cfg)) {
            TextCodec codec = engine.codec(model);
            var problems = system.problems(cfg.run().seed());
            o.printf(
                    "sft %s on %s | %s parameters | %d steps x %d problems | noise %.2f%n",
                    model, system.id(), engine.registry().model(model).parameterCount(), steps, batch, noise);
            o.flush();
            ProgressBar bar = new ProgressBar("sft");
            var demos = new Demonstrations.Settings(noise, adopt);
            var settings = new SupervisedTraining.Settings(steps, batch, lr, demos, roles, keep);
            SupervisedTraining.run(
                    (p, rng) -> system.demonstrations(p, cfg.task().style(), demos, rng),
                    system.roles(),
                    problems,
                    learner,
                    base,
                    codec,
                    settings,
                    cfg.run().seed(),
                    progress(o, bar, start));
            double seconds = (System.nanoTime() - start) / 1e9;
            List<Problem> test = problems.problems(Split.VALIDATION, 0, evalProblems); // choices are made on it
            var rollouts = system.rollouts(engine.sampler(), org.pettingllms.core.rollout.RolloutProgress.NONE);
            double team = RolloutStats.of(rollouts.run(test, l1, cfg.validationRollout(1)), system.roles())
                    .successRate();
            Map<String, Double> byKind = new java.util.TreeMap<>(rollouts.drainMetrics());
            save(engine, model, codec, cfg, system.id(), seconds, null, Double.NaN, team);
            o.printf(
                    "greedy success on %d validation problems: designed system %.1f%% | saved %s%n",
                    evalProblems, 100 * team, out);
            DesignReport.lines(byKind, "").forEach(line -> o.println("  " + line));
            o.flush();
        }
        return 0;
    }

    /** The learner a warm-up trains the base model with (full weights, the run's micro-batches and threads). */
    private static TorchLearner learner(EmbeddedEngine engine, RunConfig cfg) {
        return new TorchLearner(
                engine.registry(),
                new TrainSettings(
                        cfg.train().microBatchSize(),
                        false,
                        true,
                        cfg.engine().trainVisionTower(),
                        cfg.engine().learnerThreads()));
    }

    /** A line every twentieth of the steps and at the last, the bar between them. */
    private static SupervisedTraining.Progress progress(PrintWriter o, ProgressBar bar, long start) {
        return (step, total, loss) -> {
            if (step % Math.max(1, total / 20) == 0 || step == total) {
                bar.clear();
                o.printf("step %d/%d | loss %.4f | %.0f s%n", step, total, loss, (System.nanoTime() - start) / 1e9);
                o.flush();
            }
            bar.update(step, total);
        };
    }

    /** The source model's tokenizer files beside the new weights, so that the directory loads on its own. */
    private static void copyTokenizer(Path from, Path to) throws IOException {
        for (String f : List.of(
                "tokenizer.json",
                "tokenizer_config.json",
                "vocab.json",
                "merges.txt",
                "special_tokens_map.json",
                "generation_config.json")) {
            if (Files.exists(from.resolve(f)) && !Files.exists(to.resolve(f))) {
                Files.copy(from.resolve(f), to.resolve(f));
            }
        }
    }
}
