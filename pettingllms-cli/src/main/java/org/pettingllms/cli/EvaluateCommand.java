package org.pettingllms.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.workflow.DesignReport;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.model.LoraAdapter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code evaluate}: a model (and per-role adapters) on the validation split, as the trainer validates, or on the test
 * split when asked ({@code --split test}: for claims, after every choice is made). It says which split it used.
 */
@Command(
        name = "evaluate",
        mixinStandardHelpOptions = true,
        description = "Evaluate a model (with optional per-role LoRA adapters) on the validation or test split.")
final class EvaluateCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CONFIG", description = "run config (YAML)")
    Path config;

    @Option(
            names = "--model",
            description = "a Hugging Face model directory or Hub id org/name[@revision] (default:"
                    + " the config's policy.model)")
    String model;

    @Option(names = "--adapters", paramLabel = "ROLE=DIR", description = "a PEFT adapter for a role (L2), repeatable")
    Map<String, Path> adapters = Map.of();

    @Option(
            names = "--policy",
            defaultValue = "model",
            description = "model (default), or the task's scripted team"
                    + " as oracle (always right: the references, the solver) or wrong (never right): checks the environment"
                    + " without a model")
    String policy;

    @Option(
            names = "--checkpoint",
            paramLabel = "DIR",
            description = "every trained policy of a run's checkpoint:"
                    + " runs/<run>/checkpoints (the latest) or runs/<run>/checkpoints/step-<N>")
    Path checkpoint;

    @Option(
            names = "--split",
            defaultValue = "validation",
            description = "validation (default: what training watches"
                    + " and choices are tuned on) or test (for claims only)")
    String split;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override a config value")
    List<String> overrides = new ArrayList<>();

    @Option(
            names = "--workflow",
            paramLabel = "FILE",
            description = "a designed system's config only: run this hand-written workflow (docs/WORKFLOWS.md) on"
                    + " every problem instead of the designer's designs")
    Path workflow;

    @Option(
            names = "--random-designs",
            description = "a designed system's config only: run a valid design drawn at random for each problem (what"
                    + " the designer's warm-up shows it) instead of the designer's")
    boolean randomDesigns;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        List<String> sets = new ArrayList<>(overrides);
        if (model != null) {
            // JSON: the YAML reading of overrides takes it as the string it is, whatever the path holds
            sets.add("policy.model=" + new ObjectMapper().writeValueAsString(model));
        }
        RunSetup setup = RunSetup.load(
                config,
                sets,
                Main.env(spec),
                policy.equals("model") ? HubResolver.ModelFiles.ALL : HubResolver.ModelFiles.NONE);
        if (workflow != null && randomDesigns) {
            throw new IllegalArgumentException("--workflow and --random-designs: give one of them");
        }
        if (workflow != null) {
            setup = setup.withWorkflow(workflow);
        }
        if (randomDesigns) {
            setup = setup.withRandomDesigns();
        }
        RunConfig cfg = setup.config();
        Split which = Split.of(split);
        if (which == Split.TRAIN) {
            throw new IllegalArgumentException("--split must be validation or test, got train");
        }
        List<Problem> problems = setup.problems(which);
        if (policy.equals("model")) {
            try (LocalEngine engine = new LocalEngine(cfg, setup.policies());
                    Backend backend = Backend.open(cfg, engine, setup::firstPrompt, Main.env(spec))) {
                if (backend.weightsAtService()) { // a checkpoint records where the service keeps the weights
                    if (!adapters.isEmpty()) {
                        throw new IllegalArgumentException("--adapters: not with learner.kind "
                                + cfg.learner().kind() + " (use --checkpoint)");
                    }
                } else {
                    loadAdapters(engine.get(), setup, cfg);
                }
                // the checkpoint where the backend keeps the weights, then published where the sampler reads them
                String loaded = backend.load(engine, setup, checkpoint);
                if (!loaded.isEmpty()) {
                    spec.commandLine().getOut().println(loaded);
                    spec.commandLine().getOut().flush();
                }
                evaluate(
                        backend.sampler(),
                        setup,
                        which,
                        problems,
                        backend.description().isEmpty() ? cfg.policy().model() : backend.description());
            }
        } else if (policy.equals("oracle") || policy.equals("wrong")) {
            if (!adapters.isEmpty() || model != null) {
                throw new IllegalArgumentException("--policy " + policy + " takes no --model or --adapters");
            }
            evaluate(
                    new TextPolicySampler(ScriptedPolicies.oracle(setup.task(), problems, policy.equals("wrong"))),
                    setup,
                    which,
                    problems,
                    policy + " policy");
        } else {
            throw new IllegalArgumentException("--policy must be model, oracle or wrong, got '" + policy + "'");
        }
        return 0;
    }

    private void loadAdapters(EmbeddedEngine engine, RunSetup setup, RunConfig cfg) throws IOException {
        for (Map.Entry<String, Path> a : adapters.entrySet()) {
            PolicyRef ref = setup.policies().policyOf(a.getKey());
            if (ref.adapter() == null) {
                throw new IllegalArgumentException("--adapters " + a.getKey() + "=...: role '" + a.getKey()
                        + "' has no adapter at level " + cfg.policy().level() + " (adapters need L2)");
            }
            engine.registry()
                    .putAdapter(
                            ref,
                            LoraAdapter.load(ref.adapter(), engine.registry().model(ref.model()), a.getValue()));
        }
    }

    private void evaluate(Sampler sampler, RunSetup setup, Split which, List<Problem> problems, String who) {
        RunConfig cfg = setup.config();
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        ProgressBar bar = new ProgressBar("evaluate");
        Map<String, Double> counted = new java.util.TreeMap<>();
        RolloutStats stats = setup.validate(sampler, setup.policies(), bar, which, counted);
        bar.clear();
        double seconds = (System.nanoTime() - start) / 1e9;
        long first = cfg.validation().firstProblem();
        out.printf(
                "%s | %s | %s problems %d-%d x %d | success %.1f%% | mean turns %.2f | %.1f s (%.1f ms/problem)%n",
                setup.source().id(),
                who,
                which.label(),
                first,
                first + problems.size() - 1,
                cfg.validation().samplesPerProblem(),
                100 * stats.successRate(),
                stats.meanTurns(),
                seconds,
                1000 * seconds / Math.max(1, problems.size()));
        stats.roles()
                .forEach((role, s) -> out.printf(
                        "  %-8s reward %.3f (local %.3f, team %.3f) | invalid %.1f%%"
                                + " | unparseable %.1f%% | solved %.1f%%%n",
                        role,
                        s.pathReward(),
                        s.pathLocal(),
                        s.pathTeam(),
                        100 * s.stops().getOrDefault(StepOutcome.INVALID_ACTION, 0.0),
                        100 * s.stops().getOrDefault(StepOutcome.UNPARSEABLE, 0.0),
                        100 * s.stops().getOrDefault(StepOutcome.SOLVED, 0.0)));
        DesignReport.lines(counted, "").forEach(line -> out.println("  " + line));
        out.flush();
    }
}
