package org.pettingllms.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.pettingllms.core.algo.Advantages;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.rollout.StepRecord;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.workflow.DesignReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** One AT-GRPO rollout phase of a run's config, printed: transcripts, per-role rewards, success. */
@Command(
        name = "rollout",
        mixinStandardHelpOptions = true,
        description = "Roll out a task with tree sampling and print transcripts and a summary (debugging, demo).")
final class RolloutCommand implements Callable<Integer> {
    @Mixin
    RunOptions runOptions = new RunOptions();

    @Option(
            names = "--policy",
            defaultValue = "scripted",
            description = "who answers: 'scripted' (built-in solver-based team) or 'model' (policy.model on the "
                    + "embedded engine)")
    String policy;

    @Option(
            names = "--skill",
            defaultValue = "0.25",
            description = "scripted policy: chance of answering right" + " (the solver's plan, the reference)")
    double skill;

    @Option(names = "--problems", defaultValue = "32", description = "problems to roll out")
    int problems;

    @Option(
            names = "--split",
            defaultValue = "validation",
            description = "train, validation (default) or test problems")
    Split split;

    @Option(names = "--show", defaultValue = "2", description = "episodes to print in full")
    int show;

    @Option(
            names = "--checkpoint",
            paramLabel = "DIR",
            description = "with --policy model: every trained policy of a run's checkpoint, as evaluate loads it:"
                    + " runs/<run>/checkpoints (the latest) or runs/<run>/checkpoints/step-<N>")
    Path checkpoint;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (!policy.equals("scripted") && !policy.equals("model")) {
            throw new IllegalArgumentException("--policy must be 'scripted' or 'model', got '" + policy + "'");
        }
        if (checkpoint != null && !policy.equals("model")) {
            throw new IllegalArgumentException("--checkpoint needs --policy model");
        }
        RunSetup setup =
                runOptions.load(policy.equals("model") ? HubResolver.ModelFiles.ALL : HubResolver.ModelFiles.NONE);
        problems = Smoke.cap(Main.env(spec), problems, 2);
        RunConfig cfg = setup.config();
        RolloutConfig rc =
                cfg.rollout().toRolloutConfig(cfg.task().style(), cfg.run().seed());
        RolloutResult result;
        Map<String, Double> counted;
        if (setup.designed()) { // a designer and its executors: what they write is the model's, never scripted
            if (!policy.equals("model")) {
                throw new IllegalArgumentException("a designed system ("
                        + setup.source().id() + ") rolls out its" + " model's designs: use --policy model");
            }
            List<Problem> list = setup.source().problems(cfg.run().seed()).problems(split, 0, problems);
            try (var embedded = new LocalEngine(cfg, setup.policies());
                    var backend = backend(cfg, embedded, setup)) {
                loaded(backend.load(embedded, setup, checkpoint));
                var rollouts = setup.source().rollouts(backend.sampler(), RolloutProgress.NONE);
                result = rollouts.run(list, setup.policies(), rc);
                counted = rollouts.drainMetrics();
            }
        } else {
            Task<?> task = setup.task();
            List<Problem> list = task.problems(cfg.run().seed()).problems(split, 0, problems);
            if (policy.equals("model")) {
                try (var embedded = new LocalEngine(cfg, setup.policies());
                        var backend = backend(cfg, embedded, setup)) {
                    loaded(backend.load(embedded, setup, checkpoint));
                    result = new RolloutEngine(backend.sampler()).run(task, list, setup.policies(), rc);
                }
            } else {
                result = new RolloutEngine(new TextPolicySampler(ScriptedPolicies.forTask(task, skill, list)))
                        .run(task, list, setup.policies(), rc);
            }
            counted = task.drainMetrics();
        }
        PrintWriter out = spec.commandLine().getOut();
        for (EpisodeResult e :
                result.episodes().subList(0, Math.min(show, result.episodes().size()))) {
            printEpisode(out, e);
        }
        printSummary(
                out,
                cfg,
                setup.source().id(),
                setup.source().roles(),
                result,
                counted,
                policy.equals("model") ? cfg.policy().model() : "scripted policy");
        out.flush();
        return 0;
    }

    /** The config's sampler (the engine, a Tinker service, inference servers: {@link Backend}), its line printed. */
    private Backend backend(RunConfig cfg, LocalEngine engine, RunSetup setup) {
        Backend b = Backend.open(cfg, engine, setup::firstPrompt, Main.env(spec));
        if (!b.description().isEmpty()) {
            spec.commandLine().getOut().println(b.description());
        }
        return b;
    }

    private void loaded(String line) {
        if (!line.isEmpty()) {
            spec.commandLine().getOut().println(line);
        }
    }

    private static void printEpisode(PrintWriter out, EpisodeResult e) {
        out.printf("=== episode %s (%s) ===%n", e.problem().id(), e.success() ? "success" : "no success");
        for (StepRecord s : e.path()) {
            out.printf(
                    "--- turn %d, %s: prompt ---%n%s%n",
                    s.turn() + 1, s.role(), s.prompt().text());
            out.printf(
                    "--- answer: %s%n    %s | reward %.3f (local %.3f, team %.3f) | %s%n",
                    s.answer().strip(),
                    s.summary(),
                    s.mixedReward(),
                    s.reward().local(),
                    s.reward().team(),
                    s.outcome());
        }
        out.println();
    }

    private static void printSummary(
            PrintWriter out,
            RunConfig cfg,
            String id,
            List<String> roles,
            RolloutResult result,
            Map<String, Double> counted,
            String who) {
        RolloutStats stats = RolloutStats.of(result, roles);
        var r = cfg.rollout();
        out.printf(
                "%s | level %s | %s K=%d | %d episodes | %s%n",
                id, cfg.policy().level(), r.mode().name().toLowerCase(), r.k(), stats.episodes(), who);
        out.printf(
                "%-6s %12s %10s %10s %13s %9s %12s%n",
                "role", "path reward", "local", "team", "all cand.", "invalid", "unparseable");
        for (Map.Entry<String, RolloutStats.RoleStats> e : stats.roles().entrySet()) {
            RolloutStats.RoleStats s = e.getValue();
            out.printf(
                    "%-6s %12.3f %10.3f %10.3f %13.3f %8.1f%% %11.1f%%%n",
                    e.getKey(),
                    s.pathReward(),
                    s.pathLocal(),
                    s.pathTeam(),
                    s.sampleReward(),
                    100 * s.stops().getOrDefault(StepOutcome.INVALID_ACTION, 0.0),
                    100 * s.stops().getOrDefault(StepOutcome.UNPARSEABLE, 0.0));
        }
        List<ScoredSample> scored = Advantages.compute(
                cfg.algo().filter().apply(cfg.algo().groupBy().group(result.samples())),
                cfg.algo().normalizeByStd());
        long informative = scored.stream().filter(s -> s.advantage() != 0).count();
        out.printf(
                "success %.1f%% | mean turns %.2f | env steps %d | samples %d (%.0f%% with non-zero advantage)"
                        + " | %.2f s%n",
                100 * stats.successRate(),
                stats.meanTurns(),
                stats.envSteps(),
                stats.samples(),
                100.0 * informative / Math.max(1, scored.size()),
                result.wallSeconds());
        // what the task counted over every candidate (e.g. the tool's programs against its catalog); timings (keys
        // ending in _s) are left out so that the same run prints the same numbers
        StringBuilder line = new StringBuilder("task counts:");
        counted.forEach((k, v) -> {
            if (!k.endsWith("_s") && !k.startsWith("design/")) {
                line.append(' ').append(k).append('=');
                line.append(v == Math.rint(v) ? String.valueOf(v.longValue()) : String.format("%.3f", v));
            }
        });
        if (line.indexOf("=") > 0) {
            out.println(line);
        }
        DesignReport.lines(counted, "").forEach(out::println);
    }
}
