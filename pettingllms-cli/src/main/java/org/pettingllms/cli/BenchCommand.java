package org.pettingllms.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.envs.math.AnswerBench;
import org.pettingllms.envs.planning.PlaceRewards;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.sandbox.SandboxBench;
import org.pettingllms.envs.verilog.VerilogBench;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.bench.ModelBench;
import org.pettingllms.torch.model.Presets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Benchmarks, printed as JSON. {@code rollout}: rollout-engine throughput with a scripted sampler (no model), so
 * that the engine's own overhead (threads, prompts, stepping, sample records) is known.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Print benchmark numbers as JSON: "
                + "'rollout' (engine overhead with a scripted sampler), 'program' (the same rollouts through an agent"
                + " program replayed for per-call groups: the replays' cost), 'model' (embedded model engine throughput) or"
                + " 'sandbox'"
                + " (sandboxed executions of a trivial program) or 'verilog' (designs judged by Icarus Verilog per second)"
                + " or 'remote' (rollouts through serve replicas over loopback vs"
                + " in-process, and adapter publishing) or 'answers' (math answer checks per second by kind of answer) or"
                + " 'soak' (the main config for many steps, resident memory every 25: long) or 'places' (what fixing"
                + " each wrong place of a discovery warm-up's tool programs earns: --config, --problems).")
final class BenchCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            paramLabel = "WHAT",
            description = "what to measure: rollout, program, model, sandbox, verilog, remote, answers, soak, places")
    String what;

    @Option(
            names = "--preset",
            defaultValue = "2m",
            description = "model: a fresh Qwen3-style config: 2m, 20m, qwen3-0.6b or qwen3-1.7b (random weights)")
    String preset;

    @Option(names = "--device", defaultValue = "cpu", description = "model: cpu, gpu or gpu:N")
    String device;

    @Option(names = "--dtype", defaultValue = "fp32", description = "model: fp32 or bf16 (how weights are held)")
    String dtype;

    @Option(
            names = "--parts",
            defaultValue = "prefill,decode,train,tree",
            split = ",",
            description = "model: what to measure, of prefill, decode, train, tree")
    Set<String> parts;

    @Option(
            names = "--shapes",
            defaultValue = "full",
            description = "model: full (16-row prefill, decode at batch 1/16/64 for 64 tokens, 16 training rows of 96"
                    + " tokens), small (4 rows, batch 1/4/16 for 16 tokens, 4 rows: a Qwen3 shape on a 2-core CPU) or"
                    + " rl (as full, training rows of 1,024 tokens: what an RL update trains)")
    String shapes;

    @Option(
            names = "--anchor",
            description = "model: also run scripts/gpu/anchor.py with this Python (e.g. python3) on the same shapes,"
                    + " device and dtype in PyTorch eager, and print its numbers beside ours ('pytorch_eager')")
    String anchorPython;

    @Option(
            names = "--model",
            description = "model: a Hugging Face model directory instead of a preset; remote: instead of"
                    + " the config's model")
    Path modelDir;

    @Option(
            names = "--sampler-threads",
            defaultValue = "1",
            description = "model: PyTorch threads of the thread that decodes, as engine.samplerThreads (default 1)")
    int samplerThreads;

    @Option(
            names = "--seconds",
            defaultValue = "4",
            description = "seconds per measurement (model; answers: per kind of answer)")
    int seconds;

    @Option(names = "--task", defaultValue = "plan-path", description = "plan-path, sokoban or sudoku")
    String task;

    @Option(names = "--k", defaultValue = "4", description = "candidates per decision")
    int k;

    @Option(
            names = "--problems",
            defaultValue = "64",
            description = "concurrent problems per round; places: training boards")
    int problems;

    @Option(names = "--rounds", defaultValue = "20", description = "measured rounds")
    int rounds;

    @Option(names = "--warmup", defaultValue = "5", description = "unmeasured warm-up rounds")
    int warmup;

    @Option(
            names = "--slots",
            defaultValue = "2",
            description = "sandbox, verilog: programs or simulations run at once")
    int slots;

    @Option(names = "--replicas", defaultValue = "2", description = "remote: serve replicas on loopback")
    int replicas;

    @Option(names = "--steps", defaultValue = "200", description = "soak: training steps")
    int steps;

    @Option(names = "--every", defaultValue = "25", description = "soak: steps between memory readings")
    int every;

    @Option(
            names = "--config",
            description = "soak, remote, places: run config (default: the main one, configs/plan-path/L2.yaml)")
    Path config;

    @Option(
            names = "--policy",
            defaultValue = "random",
            description = "random (cheap answers: engine overhead) or solver (scripted solver team)")
    String policy;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Map<String, String> smokeEnv = Main.env(spec);
        seconds = Smoke.cap(smokeEnv, seconds, 1);
        problems = Smoke.cap(smokeEnv, problems, 2);
        rounds = Smoke.cap(smokeEnv, rounds, 1);
        warmup = Smoke.cap(smokeEnv, warmup, 0);
        steps = Smoke.cap(smokeEnv, steps, 2);
        if (what.equals("model")) {
            var cfg = modelDir == null ? Presets.of(preset) : null;
            var options = new ModelBench.Options(
                    Torch.device(device), Torch.dataType(dtype), parts, ModelBench.Shapes.of(shapes), samplerThreads);
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("benchmark", "model");
            json.put("preset", modelDir == null ? preset : null);
            json.put("shapes", shapes);
            Map<String, Object> eager = null;
            if (anchorPython != null) {
                if (modelDir != null) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(), "--anchor measures a --preset shape, not a --model directory");
                }
                // eager first, while this process holds no model: at a Qwen3 shape on a 24 GB machine the two
                // processes' memory together does not fit, and ours is not given back to the system when closed
                eager = AnchorBench.run(anchorPython, preset, shapes, options, seconds, Main.env(spec));
            }
            json.putAll(ModelBench.run(cfg, modelDir, seconds, options));
            if (eager != null) {
                json.put("pytorch_eager", eager);
            }
            print(json);
            return 0;
        }
        if (what.equals("sandbox")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("benchmark", "sandbox");
            json.putAll(SandboxBench.run(Math.max(8, problems * rounds / 4), slots));
            print(json);
            return 0;
        }
        if (what.equals("verilog")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("benchmark", "verilog");
            json.putAll(VerilogBench.run(Math.max(8, problems * rounds / 4), slots));
            print(json);
            return 0;
        }
        if (what.equals("answers")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("benchmark", "answers");
            json.putAll(AnswerBench.run(seconds));
            print(json);
            return 0;
        }
        if (what.equals("remote")) {
            Map<String, String> env = Main.env(spec);
            List<String> overrides = new ArrayList<>(List.of("rollout.k=" + k, "rollout.problemsPerStep=" + problems));
            if (modelDir != null) {
                overrides.add("policy.model=" + modelDir);
            }
            print(RemoteBench.run(
                    RunSetup.load(config != null ? config : RunSetup.defaultConfig(env), overrides, env),
                    replicas,
                    rounds,
                    warmup));
            return 0;
        }
        if (what.equals("soak")) {
            Map<String, String> env = Main.env(spec);
            print(SoakBench.run(
                    config != null ? config : RunSetup.defaultConfig(env),
                    env,
                    steps,
                    every,
                    spec.commandLine().getErr()));
            return 0;
        }
        if (what.equals("places")) {
            Map<String, String> env = Main.env(spec);
            RunSetup s = RunSetup.load(
                    config != null ? config : RunSetup.defaultConfig(env), List.of(), env, HubResolver.ModelFiles.NONE);
            if (!(s.task() instanceof PlanningTask<?, ?> planning)) {
                throw new IllegalArgumentException(
                        "bench places: task '" + s.config().task().name() + "' has no tool programs with places");
            }
            var list = new SeededProblems(planning.id(), s.config().run().seed()).problems(Split.TRAIN, 0, problems);
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("benchmark", "places");
            json.put("task", planning.id());
            json.put(
                    "boards",
                    "train problems 0-" + (problems - 1) + " of run seed "
                            + s.config().run().seed());
            PlaceRewards.Report report = PlaceRewards.of(planning, list, 0.05);
            json.put("places", report.places());
            json.put("programs", report.programs());
            print(json);
            return 0;
        }
        if (!what.equals("rollout") && !what.equals("program")) {
            throw new IllegalArgumentException(
                    "bench '" + what
                            + "': available benchmarks: rollout, program, model, sandbox, verilog, remote, answers, soak, places");
        }
        Task<?> t = Tasks.create(new RunConfig.TaskSpec(task, PromptStyle.COMPACT, 4, List.of(), Map.of()));
        TextPolicy answers = switch (policy) {
            case "random" -> BenchCommand::randomMoves;
            case "solver" -> ScriptedPolicies.forTask(t, 0.5, List.of());
            default -> throw new IllegalArgumentException("--policy must be random or solver, got '" + policy + "'");
        };
        if (what.equals("program")) {
            Map<String, Object> json = ProgramBench.run(t, answers, k, problems, rounds, warmup);
            json.put("policy", policy);
            print(json);
            return 0;
        }
        PolicyMap policies = PolicyMap.forLevel(Level.L2, t.roles(), "bench", Set.of());
        RolloutEngine engine = new RolloutEngine(new TextPolicySampler(answers));
        List<Double> stepsPerSecond = new ArrayList<>();
        long envSteps = 0;
        double seconds = 0;
        for (int round = 0; round < warmup + rounds; round++) {
            RolloutConfig cfg = treeRound(k, problems, round);
            var list = new SeededProblems(t.id(), 0).problems(Split.TRAIN, (long) round * problems, problems);
            long start = System.nanoTime();
            RolloutResult r = engine.run(t, list, policies, cfg);
            double s = (System.nanoTime() - start) / 1e9;
            if (round >= warmup) {
                stepsPerSecond.add(r.envSteps() / s);
                envSteps += r.envSteps();
                seconds += s;
            }
        }
        double[] sorted = stepsPerSecond.stream()
                .mapToDouble(Double::doubleValue)
                .sorted()
                .toArray();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "rollout");
        json.put("task", t.id());
        json.put("roles", t.roles().size());
        json.put("k", k);
        json.put("concurrent_problems", problems);
        json.put("policy", policy);
        json.put("rounds", rounds);
        json.put("env_steps", envSteps);
        json.put("env_steps_per_s_mean", Math.round(envSteps / seconds));
        json.put("env_steps_per_s_median", Math.round(sorted[sorted.length / 2]));
        json.put("env_steps_per_s_min", Math.round(sorted[0]));
        json.put("env_steps_per_s_max", Math.round(sorted[sorted.length - 1]));
        json.put("cores", Runtime.getRuntime().availableProcessors());
        json.put("java", Runtime.version().toString());
        print(json);
        return 0;
    }

    /** A measured round's rollouts: tree sampling with K candidates, temperature 1, seeded by the round. */
    static RolloutConfig treeRound(int k, int problems, int round) {
        return new RolloutConfig(
                RolloutConfig.Mode.TREE,
                k,
                true,
                PromptStyle.COMPACT,
                new SamplingParams(1, 0, 1, 64, List.of(), round),
                RewardMix.PAPER,
                problems);
    }

    private void print(Map<String, Object> json) throws Exception {
        spec.commandLine()
                .getOut()
                .println(new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(json));
        spec.commandLine().getOut().flush();
    }

    /** 1..8 random moves: as cheap as an answer can be, so the numbers show the engine and the task. */
    private static String randomMoves(Object policy, Object prompt, SplittableRandom rng) {
        StringBuilder moves = new StringBuilder();
        for (int i = 1 + rng.nextInt(8); i > 0; i--) {
            moves.append("UDLR".charAt(rng.nextInt(4)));
        }
        return moves.toString();
    }
}
