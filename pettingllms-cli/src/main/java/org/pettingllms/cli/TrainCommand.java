package org.pettingllms.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.engine.EmbeddedEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code train}: AT-GRPO training of a run's policies on the embedded engine. */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Train the run's policies with AT-GRPO on the embedded engine (CPU by default).")
final class TrainCommand implements Callable<Integer> {
    @Mixin
    RunOptions runOptions = new RunOptions();

    @Option(names = "--resume", description = "continue the run from its last checkpoint")
    boolean resume;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RunSetup setup = runOptions.load();
        RunConfig cfg = setup.config();
        Path runDir = Path.of(cfg.run().outputDir()).resolve(cfg.run().name());
        if (!resume && Files.exists(runDir.resolve("metrics.jsonl"))) {
            throw new IllegalArgumentException("run directory " + runDir + " already holds a run; pass --resume to "
                    + "continue it, or set run.name (--set run.name=...) for a new one");
        }
        Files.createDirectories(runDir);
        writeRunJson(runDir, cfg);
        PrintWriter out = spec.commandLine().getOut();
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, setup.policies())) {
            ProgressBar bar = new ProgressBar("episodes");
            Trainer trainer = new Trainer(cfg, setup.task(), setup.task().problems(cfg.run().seed()),
                    setup.policies(), engine.sampler(), engine.learner(), runDir, bar);
            out.printf("training %s | level %s | %d steps | run dir %s%n", setup.task().id(), cfg.policy().level(),
                    cfg.train().steps(), runDir);
            out.flush();
            long start = System.nanoTime();
            int[] stepsDone = {0};
            trainer.run(resume, m -> {
                bar.clear();
                stepsDone[0]++;
                int left = cfg.train().steps() - 1 - ((Number) m.get("step")).intValue();
                double perStep = (System.nanoTime() - start) / 1e9 / stepsDone[0];
                out.println(StepLine.of(m, setup.task().roles(), cfg.train().steps(), StepLine.successLabel(cfg.rollout()))
                        + (left > 0 ? " | ETA " + ProgressBar.duration(left * perStep) : ""));
                out.flush();
                bar.restart();
            });
        }
        out.printf("done: metrics in %s, checkpoints in %s%n", runDir.resolve("metrics.jsonl"),
                runDir.resolve("checkpoints"));
        out.flush();
        return 0;
    }

    /** {@code run.json}: the resolved config, versions, seed and machine, written at start. */
    static void writeRunJson(Path runDir, RunConfig cfg) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode run = json.createObjectNode();
        run.set("config", ConfigLoader.toTree(cfg));
        run.put("seed", cfg.run().seed());
        ObjectNode versions = run.putObject("versions");
        String v = TrainCommand.class.getPackage().getImplementationVersion();
        versions.put("pettingllms", v == null ? "dev" : v);
        versions.put("java", Runtime.version().toString());
        versions.put("pytorch", Torch.engine().getVersion());
        ObjectNode machine = run.putObject("machine");
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
        org.pettingllms.core.util.AtomicFiles.writeString(runDir.resolve("run.json"), run.toPrettyString());
    }

    /**
     * One compact console line per step. It names what each rate measures: the training rollout's success is that
     * of the path it kept (the best of K candidates at every decision, in tree mode), far above what one sample of
     * the policy achieves; "one sample solved" is the share of all sampled answers that solved the problem on their
     * own; "greedy val" is the greedy success on the validation problems.
     */
    static final class StepLine {
        private StepLine() {
        }

        static String successLabel(RunConfig.Rollout rollout) {
            return rollout.mode() == org.pettingllms.core.rollout.RolloutConfig.Mode.TREE && rollout.k() > 1
                    ? "best-of-" + rollout.k() + " success" : "success";
        }

        static String of(Map<String, Object> m, List<String> roles, int steps, String successLabel) {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format("step %d/%d | %s %.0f%%", ((Number) m.get("step")).intValue() + 1, steps,
                    successLabel, 100 * num(m, "success/rate")));
            sb.append(" | one sample solved");
            for (String r : roles) {
                sb.append(String.format(" %s %.0f%%", r, 100 * num(m, "sampled/" + r + "/solved")));
            }
            if (m.containsKey("val/success/rate")) {
                sb.append(String.format(" | greedy val %.1f%%", 100 * num(m, "val/success/rate")));
            }
            sb.append(" | reward");
            for (String r : roles) {
                sb.append(String.format(" %s %.2f", r, num(m, "reward/" + r + "/mean")));
            }
            sb.append(String.format(" | equal-reward groups %.0f%% | %.1f s", 100 * num(m, "groups/constant_frac"),
                    num(m, "time/step_s")));
            return sb.toString();
        }

        private static double num(Map<String, Object> m, String k) {
            Object v = m.get(k);
            return v instanceof Number n ? n.doubleValue() : 0;
        }
    }
}
