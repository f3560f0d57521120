package org.pettingllms.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.RoutingSampler;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.Rollouts;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.MlflowTracker;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.endpoint.EndpointProgram;
import org.pettingllms.endpoint.ProcessProgram;
import org.pettingllms.endpoint.RecordingEndpoint;
import org.pettingllms.langchain4j.AgentProgram;
import org.pettingllms.langchain4j.ProgramRollouts;
import org.pettingllms.langchain4j.TaskTeam;
import org.pettingllms.torch.Torch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code train}: AT-GRPO training of a run's policies on the embedded engine. */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        description = "Train the run's policies with AT-GRPO on the embedded engine (CPU by default).")
final class TrainCommand implements Callable<Integer> {
    @Mixin
    RunOptions runOptions = new RunOptions();

    @Option(names = "--resume", description = "continue the run from its last checkpoint")
    boolean resume;

    @Option(
            names = "--scripted",
            paramLabel = "ROLE",
            split = ",",
            description =
                    "roles played by the task's "
                            + "built-in scripted policy at full skill and never trained (needs a policy per role: L2 or L3); a "
                            + "learning check that isolates the other roles, e.g. --scripted tool: must the planner learn to adopt?")
    List<String> scripted = List.of();

    @Option(
            names = "--program",
            paramLabel = "PROGRAM",
            description = "train an agent program instead of the task's own rollouts, with AT-GRPO's groups made per"
                    + " model call by replaying the program: 'team' (the task's roles played as a LangChain4j"
                    + " program, reward 1 when solved) or the class name of an AgentProgram (or an EndpointProgram, whose"
                    + " models are reached over HTTP) on the class path, with a public constructor (Task, PromptStyle)"
                    + " given the config's task, or a no-argument one; the task supplies the problems and the roles")
    String program;

    @Option(
            names = "--program-command",
            paramLabel = "COMMAND",
            description = "train a program in any language, one process per episode (sh -c COMMAND): it reaches its"
                    + " models through the OpenAI chat API at $OPENAI_BASE_URL (the model name is the role), reads"
                    + " the problem from $PETTINGLLMS_PROBLEM (JSON) and prints its reward on its last line")
    String programCommand;

    @Option(
            names = "--program-timeout",
            description = "with --program-command: seconds one episode's process may run (default: 300)")
    Integer programTimeout;

    @Option(
            names = "--success-at",
            description = "with --program or --program-command: the reward at or above which an episode counts as"
                    + " solved (default: 1.0)")
    Double successAt;

    @Option(
            names = "--max-calls",
            description = "with --program or --program-command: model calls one program run may make (default: 64)")
    Integer maxCalls;

    @Option(
            names = "--dry-run",
            description = "load the config, the model's config, tokenizer and chat template, "
                    + "and the task's data; print the first prompt of each role as the model reads it, and stop (no weights "
                    + "loaded, nothing written)")
    boolean dryRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        checkProgramOptions(); // before the model loads: a wrong option costs nothing
        RunSetup setup = runOptions.load(dryRun ? HubResolver.ModelFiles.CONFIG : HubResolver.ModelFiles.ALL);
        if (dryRun) {
            DryRun.print(setup, spec.commandLine().getOut());
            return 0;
        }
        RunConfig cfg = setup.config();
        Path runDir = Path.of(cfg.run().outputDir()).resolve(cfg.run().name());
        if (!resume && Files.exists(runDir.resolve("metrics.jsonl"))) {
            throw new IllegalArgumentException("run directory " + runDir + " already holds a run; pass --resume to "
                    + "continue it, or set run.name (--set run.name=...) for a new one");
        }
        Files.createDirectories(runDir);
        writeRunJson(runDir, cfg);
        PrintWriter out = spec.commandLine().getOut();
        MlflowTracker mlflow =
                Tracking.start(Main.env(spec), cfg, setup.source().id());
        if (mlflow != null) {
            out.printf("tracking on MLflow: run %s%n", mlflow.runId());
        }
        boolean trained = false;
        try {
            PolicyMap policies = withScripted(setup, cfg);
            try (LocalEngine engine = new LocalEngine(cfg, policies)) {
                ProgressBar bar = new ProgressBar("episodes");
                Map<PolicyRef, Sampler> routes = new LinkedHashMap<>();
                if (!scripted.isEmpty()) {
                    // dataset tasks' scripted team knows the references of the problems it is given: every problem
                    // the run trains on and validates on
                    List<Problem> known = new ArrayList<>(setup.task()
                            .problems(cfg.run().seed())
                            .problems(
                                    ProblemSource.Split.TRAIN,
                                    0,
                                    cfg.train().steps() * cfg.rollout().problemsPerStep()));
                    known.addAll(setup.problems(ProblemSource.Split.VALIDATION));
                    Sampler script = new TextPolicySampler(ScriptedPolicies.forTask(setup.task(), 1.0, known));
                    scripted.forEach(role -> routes.put(policies.policyOf(role), script));
                }
                Object user = program == null ? null : agentProgram(setup, cfg); // before the backend opens
                Backend backend = Backend.open(cfg, engine, setup::firstPrompt, Main.env(spec));
                Sampler sampler = backend.sampler();
                Learner learner = backend.learner();
                if (!backend.description().isEmpty()) {
                    out.println(backend.description());
                }
                Sampler routed = new RoutingSampler(routes, sampler);
                try (RecordingEndpoint endpoint = programCommand != null || user instanceof EndpointProgram
                        ? new RecordingEndpoint("127.0.0.1", 0).start()
                        : null) {
                    AgentProgram agent = user instanceof EndpointProgram overHttp
                            ? endpoint.program(overHttp)
                            : user != null
                                    ? (AgentProgram) user
                                    : endpoint != null
                                            ? endpoint.program(new ProcessProgram(
                                                    programCommand,
                                                    Duration.ofSeconds(programTimeout == null ? 300 : programTimeout)))
                                            : null;
                    Rollouts rollouts = agent == null
                            ? setup.source().rollouts(routed, bar)
                            : new ProgramRollouts(
                                    agent,
                                    setup.task().roles(),
                                    routed,
                                    successAt == null ? 1.0 : successAt,
                                    maxCalls == null ? 64 : maxCalls,
                                    bar,
                                    policy -> engine.codec(policy.model()).chatTemplate());
                    Trainer trainer = new Trainer(
                            cfg, rollouts, setup.source().problems(cfg.run().seed()), policies, learner, runDir);
                    out.printf(
                            "training %s | level %s | %d steps | run dir %s%n",
                            setup.source().id(),
                            cfg.policy().level(),
                            cfg.train().steps(),
                            runDir);
                    out.flush();
                    long start = System.nanoTime();
                    int[] stepsDone = {0};
                    trainer.run(resume, m -> {
                        if (mlflow != null) {
                            mlflow.step(m);
                        }
                        bar.clear();
                        stepsDone[0]++;
                        int left = cfg.train().steps() - 1 - m.step();
                        double perStep = (System.nanoTime() - start) / 1e9 / stepsDone[0];
                        out.println(StepLine.of(
                                        m,
                                        setup.source().roles(),
                                        cfg.train().steps(),
                                        StepLine.successLabel(cfg.rollout()))
                                + (left > 0 ? " | ETA " + ProgressBar.duration(left * perStep) : ""));
                        out.flush();
                        bar.restart();
                    });
                } finally {
                    backend.close();
                }
            }
            trained = true;
        } finally {
            Tracking.finish(mlflow, runDir, trained, out);
        }
        out.printf(
                "done: metrics in %s, checkpoints in %s%n",
                runDir.resolve("metrics.jsonl"), runDir.resolve("checkpoints"));
        out.flush();
        return 0;
    }

    private void checkProgramOptions() {
        if (program != null && programCommand != null) {
            throw new IllegalArgumentException("--program and --program-command: give one");
        }
        boolean programs = program != null || programCommand != null;
        if (!programs && (successAt != null || maxCalls != null || programTimeout != null)) {
            throw new IllegalArgumentException(
                    "--success-at, --max-calls and --program-timeout need --program or --program-command");
        }
        if (programTimeout != null && (programTimeout < 1 || programCommand == null)) {
            throw new IllegalArgumentException("--program-timeout: seconds >= 1, with --program-command");
        }
        if (maxCalls != null && maxCalls < 1) {
            throw new IllegalArgumentException("--max-calls: expected >= 1, got " + maxCalls);
        }
        if (successAt != null && !Double.isFinite(successAt)) {
            throw new IllegalArgumentException("--success-at: expected a number, got " + successAt);
        }
    }

    /**
     * {@code --program}: the task's team as a program, or a user's program class: an {@link AgentProgram} (its models
     * in-process) or an {@link EndpointProgram} (its models over HTTP, through a recording endpoint), made with a
     * public constructor {@code (Task, PromptStyle)} that is given the config's task and prompt style, or else a
     * public no-argument one.
     */
    private Object agentProgram(RunSetup setup, RunConfig cfg) {
        if (program.equals("team")) {
            return new TaskTeam<>(setup.task(), cfg.task().style());
        }
        try {
            Class<?> c = Class.forName(program);
            if (!AgentProgram.class.isAssignableFrom(c) && !EndpointProgram.class.isAssignableFrom(c)) {
                throw new IllegalArgumentException("--program " + program + ": not an " + AgentProgram.class.getName()
                        + " or an " + EndpointProgram.class.getName());
            }
            try {
                return c.getConstructor(Task.class, PromptStyle.class)
                        .newInstance(setup.task(), cfg.task().style());
            } catch (NoSuchMethodException e) {
                return c.getConstructor().newInstance();
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(
                    "--program " + program + ": no such class on the class path (or use 'team')");
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("--program " + program
                    + ": cannot create it with a public constructor (Task, PromptStyle) or a no-argument one: " + e);
        }
    }

    /** The run's policies, with the {@code --scripted} roles untrained; each must have a policy of its own. */
    private PolicyMap withScripted(RunSetup setup, RunConfig cfg) {
        if (scripted.isEmpty()) {
            return setup.policies();
        }
        for (String role : scripted) {
            if (!setup.task().roles().contains(role)) {
                throw new IllegalArgumentException("--scripted " + role + ": the task's roles are "
                        + setup.task().roles());
            }
        }
        if (cfg.policy().level() == Level.L0 || cfg.policy().level() == Level.L1) {
            throw new IllegalArgumentException("--scripted needs a policy per role (policy.level L2 or L3), got "
                    + cfg.policy().level());
        }
        Set<String> untrained = new HashSet<>(cfg.policy().untrainedRoles());
        untrained.addAll(scripted);
        return PolicyMap.forLevel(
                cfg.policy().level(), setup.task().roles(), cfg.policy().model(), untrained);
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
        AtomicFiles.writeString(runDir.resolve("run.json"), run.toPrettyString());
    }

    /**
     * One compact console line per step. It names what each rate measures: the training rollout's success is that
     * of the path it kept (the best of K candidates at every decision, in tree mode), far above what one sample of
     * the policy achieves; "one sample solved" is the share of all sampled answers that solved the problem on their
     * own; "greedy val" is the greedy success on the validation problems.
     */
    static final class StepLine {
        private StepLine() {}

        static String successLabel(RunConfig.Rollout rollout) {
            return rollout.mode() == RolloutConfig.Mode.TREE && rollout.k() > 1
                    ? "best-of-" + rollout.k() + " success"
                    : "success";
        }

        static String of(StepReport m, List<String> roles, int steps, String successLabel) {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(
                    "step %d/%d | %s %.0f%%",
                    m.step() + 1, steps, successLabel, 100 * m.getOrDefault(Metric.SUCCESS, 0)));
            sb.append(" | one sample solved");
            for (String r : roles) {
                sb.append(String.format(" %s %.0f%%", r, 100 * m.getOrDefault(Metric.sampled(r, "solved"), 0)));
            }
            if (m.has(Metric.VAL + Metric.SUCCESS)) {
                sb.append(String.format(" | greedy val %.1f%%", 100 * m.get(Metric.VAL + Metric.SUCCESS)));
            }
            sb.append(" | reward");
            for (String r : roles) {
                sb.append(String.format(" %s %.2f", r, m.getOrDefault(Metric.reward(r), 0)));
            }
            sb.append(String.format(
                    " | equal-reward groups %.0f%% | %.1f s",
                    100 * m.getOrDefault(Metric.GROUPS_CONSTANT, 0), m.getOrDefault(Metric.STEP_S, 0)));
            if (m.has(Metric.ASYNC_STALENESS)) { // asynchronous: how old the samples were, and who waited
                sb.append(String.format(
                        " | stale %.0f, waited rollout %.1f s hold %.1f s",
                        m.get(Metric.ASYNC_STALENESS),
                        m.getOrDefault(Metric.ASYNC_WAIT_ROLLOUT, 0),
                        m.getOrDefault(Metric.ASYNC_WAIT_HOLD, 0)));
            }
            return sb.toString();
        }
    }
}
