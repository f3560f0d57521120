package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.serve.InferenceServer;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;
import picocli.CommandLine;

/** The command line as a user meets it: real configs from the repository, real output. */
class CliTest {
    static final Path CONFIGS = Path.of("..", "configs");
    static final String HUMANEVAL =
            SharedFiles.shared().resolve("datasets/code/humaneval.jsonl").toString();
    static final String HOTPOT = SharedFiles.shared()
            .resolve("datasets/search/hotpotqa_distractor_100.jsonl")
            .toString();
    static final String GSM8K =
            SharedFiles.shared().resolve("datasets/math/gsm8k.train.jsonl").toString();
    static final String AIME =
            SharedFiles.shared().resolve("datasets/math/aime24.test.jsonl").toString();

    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        return run(System.getenv(), args);
    }

    /** A command over the environment {@code env} (the Hub's settings, PETTINGLLMS_SMOKE). */
    static Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(env);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    static Result run(Args args) {
        return run(args.array());
    }

    /** A config of the repository's, as a command line names it. */
    static String config(String name) {
        return CONFIGS.resolve(name).toString();
    }

    @Tag("heavy")
    @Test
    void everyShippedConfigLoadsAndRollsOut() throws Exception {
        try (var files = Files.walk(CONFIGS)) {
            var configs =
                    files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
            assertThat(configs).hasSize(48);
            for (Path c : configs) {
                String task = c.getParent().getFileName().toString();
                // configs that read Hub datasets play the same files from the test data here (no network in tests)
                Args data = !Files.readString(c).contains("hf://")
                        ? Args.of()
                        : switch (task) {
                            case "search" ->
                                Args.of()
                                        .set("task.options.train=", "task.options.test=" + HOTPOT)
                                        .with("--split", "test");
                            case "code" ->
                                Args.of()
                                        .set("task.options.train=", "task.options.test=" + HUMANEVAL)
                                        .with("--split", "test");
                            default -> Args.of().set("task.options.train=" + GSM8K, "task.options.test=" + AIME);
                        };
                // code and verilog episodes run every program or design in the sandbox: two problems are enough
                if (task.equals("designer") && c.toString().contains("qwen3")) { // a Hub model: loads, then refuses
                    Result hub = run("rollout", c.toString());
                    assertThat(hub.code()).as("%s: %s", c, hub.err()).isEqualTo(2);
                    assertThat(hub.err()).as("%s", c).contains("design-mix-v1").contains("use --policy model");
                    continue;
                }
                // a designed system writes its model's designs (no scripted designer): 2 problems, 2 designs, once each
                Args rollout = Args.of("rollout", c.toString());
                Result r = run(
                        task.equals("designer")
                                ? rollout.with("--policy", "model", "--problems", "2", "--show", "0")
                                        .set("rollout.k=2", "task.options.design.executions=1")
                                : task.equals("code") || task.equals("verilog")
                                        ? rollout.with("--problems", "2", "--show", "0")
                                                .set("rollout.k=2", "task.maxTurns=1")
                                                .with(data)
                                        : rollout.with("--problems", "4", "--show", "0")
                                                .with(data));
                assertThat(r.code()).as("%s: %s", c, r.err()).isZero();
                String role = switch (task) {
                    case "math" -> "reasoner ";
                    case "code" -> "coder ";
                    case "verilog" -> "designer ";
                    case "sql" -> "writer ";
                    case "search" -> "answerer ";
                    case "designer" -> "designer ";
                    case "science" -> "theorist ";
                    case "household" -> "actor ";
                    default -> "plan ";
                };
                assertThat(r.out()).as("%s", c).contains("success ").contains(role);
            }
        }
    }

    @Tag("heavy")
    @Test
    void evaluationWithoutAModelScoresTheOracleFullyAndTheWrongPolicyZero() {
        // generated math and code problems (compact prompts), and HumanEval through the real-model recipe (chat)
        for (String name : new String[] {"math/L1.yaml", "code/L1.yaml", "code/L2-qwen3-1.7b.yaml"}) {
            Args base = Args.of("evaluate", config(name)).set("validation.problems=6", "task.maxTurns=2");
            if (name.contains("qwen3")) {
                base.set("task.options.test=" + HUMANEVAL, "task.options.train=");
            } else {
                base.set("run.seed=1");
            }
            // the recipe without a train file has no validation rows: its test split is asked for by name
            String split = name.contains("qwen3") ? "test" : "validation";
            Result oracle = run(base.copy().with("--policy", "oracle", "--split", split));
            assertThat(oracle.code()).as(oracle.err()).isZero();
            assertThat(oracle.out())
                    .contains("| " + split + " problems 0-5 x 1 |")
                    .contains("success 100.0%");
            Result wrong = run(base.copy().with("--policy", "wrong", "--split", split));
            assertThat(wrong.out()).contains("success 0.0%");
        }
        Result bad = run(Args.of("evaluate", config("math/L1.yaml"), "--policy", "oracle")
                .set("task.options.generator=", "task.options.test=no/such.jsonl"));
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("config key 'task.options.test'").contains("no/such.jsonl");
    }

    @Test
    void theDemoRolloutPrintsTranscriptsRewardsPerRoleAndSuccess() {
        Result r = run("rollout", config("plan-path/L2.yaml"), "--problems", "8", "--show", "1");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .contains("=== episode plan-path-v1/validation/0")
                .contains("--- turn 1, tool: prompt ---")
                .contains("--- turn 1, plan: prompt ---")
                .contains("tool: ")
                .containsPattern("(?m)^tool +-?\\d+\\.\\d{3}")
                .containsPattern("(?m)^plan +-?\\d+\\.\\d{3}")
                .containsPattern("success \\d+\\.\\d% \\| mean turns")
                .as("the scripted tool writes catalog programs, each candidate counted")
                .containsPattern("task counts: .*tool/programs_catalog_flawed=\\d+ tool/programs_catalog_correct=\\d+"
                        + " tool/programs_other=0( |\\n|$)")
                .as("and place by place, the discovery places of the game's flawed programs")
                .containsPattern("tool/place/swapped-ud/right=\\d+ tool/place/swapped-ud/wrong=\\d+");
    }

    @Test
    void checkAnswerShowsTheExtractedAnswerBothNormalFormsAndTheReason() {
        Result right = run("check-answer", "The final answer is $\\frac{3}{7}$. I hope it is correct.", "3/7");
        assertThat(right.code()).as(right.err()).isZero();
        assertThat(right.out())
                .contains("extracted:  \\frac{3}{7}")
                .contains("'final answer is' phrase")
                .contains("reference:  3/7")
                .contains("verdict:    correct: numbers")
                .contains("span:       characters 21-32 of 56");
        Result after = run(
                "check-answer",
                "--json",
                "Step one: $\\boxed{12}$. The final answer is $20$. I hope it is correct.",
                "20");
        assertThat(after.out())
                .contains("\"found_by\":\"phrase_after_box\"")
                .contains("\"span\":[45,47]")
                .contains("\"correct\":true");
        Result wrong = run("check-answer", "We obtain $\\frac{1+\\sqrt{3}}{2}$ as the root.", "2");
        assertThat(wrong.out()).contains("extracted:  \\frac{1+\\sqrt{3}}{2}").contains("verdict:    wrong");
        Result none = run("check-answer", "--json", "The code word is XQ7B.", "7");
        assertThat(none.out())
                .contains("\"extracted\":null")
                .contains("\"correct\":false")
                .contains("no answer found");
    }

    @Test
    void theSameRunPrintsTheSameNumbers() {
        String[] args = {"rollout", config("sokoban/L1.yaml"), "--problems", "6", "--show", "0"};
        String a = run(args).out().replaceAll("\\| [0-9.]+ s", "");
        String b = run(args).out().replaceAll("\\| [0-9.]+ s", "");
        assertThat(a).isEqualTo(b);
    }

    @Test
    void checkSqlPrintsBothResultsAndTheVerdict(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("t.sqlite");
        try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
                var s = c.createStatement()) {
            s.execute("CREATE TABLE t(a INTEGER, b TEXT)");
            s.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'y')");
        }
        Result right = run(
                "check-sql",
                db.toString(),
                "SELECT a FROM t WHERE b = 'y' ORDER BY a DESC",
                "SELECT a FROM t WHERE b = 'y'");
        assertThat(right.code()).isZero();
        assertThat(right.out()).contains("gold:      2 rows [a]").contains("verdict:    correct: the same 2 rows");
        Result wrong = run("check-sql", db.toString(), "SELECT a FROM t", "SELECT a FROM t WHERE b = 'y'", "--json");
        assertThat(wrong.out()).contains("\"correct\":false").contains("3 rows where the gold query has 2");
        Result hostile = run("check-sql", db.toString(), "DROP TABLE t", "SELECT a FROM t");
        assertThat(hostile.out()).contains("predicted: refused").contains("verdict:    wrong");
        Result missing = run("check-sql", dir.resolve("none.sqlite").toString(), "SELECT 1", "SELECT 1");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("no SQLite database at");
    }

    @Test
    void badInputIsNamed() {
        Result r = run("rollout", config("plan-path/L1.yaml"), "--set", "rollout.k=kk");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("config key 'rollout.k'").contains("expected an integer");
        Result opts = run("rollout", config("plan-path/L1.yaml"), "--set", "task.options.size=5");
        assertThat(opts.err())
                .contains("unknown config key 'task.options.size'")
                .contains("wallProb");
        Result task = run("rollout", config("plan-path/L1.yaml"), "--set", "task.name=chess");
        assertThat(task.err())
                .contains("unknown task 'chess'")
                .contains("household, math, plan-path, science, scienceworld, search, sokoban, sql, sudoku");
        Result roles = run("rollout", config("plan-path/L1.yaml"), "--set", "task.roles=[plan,tool]");
        assertThat(roles.err()).contains("[tool, plan]");
        Result tinker = run("rollout", config("plan-path/L2.yaml"), "--set", "learner.kind=tinker");
        assertThat(tinker.code()).isEqualTo(2);
        assertThat(tinker.err()).contains("config key 'learner.url'").contains("needs the service's base URL");
        Result kind = run("rollout", config("plan-path/L2.yaml"), "--set", "learner.kind=ray");
        assertThat(kind.err())
                .contains("config key 'learner.kind'")
                .contains("unknown learner 'ray'; available: [embedded, tinker, toy-counting]");
    }

    @Test
    void benchPrintsJson() throws Exception {
        Result r = run("bench", "rollout", "--problems", "8", "--rounds", "2", "--warmup", "1");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("k").asInt()).isEqualTo(4);
        assertThat(json.get("roles").asInt()).isEqualTo(2);
        assertThat(json.get("env_steps").asLong()).isPositive();
        assertThat(json.get("env_steps_per_s_median").asDouble()).isPositive();
    }

    @Test
    void placesBenchSaysWhatFixingEachPlaceEarnsAndRefusesATaskWithoutPlaces() throws Exception {
        Result r = run("bench", "places", "--config", config("sokoban/L2.yaml"), "--problems", "20");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("task").asText()).isEqualTo("sokoban-v1");
        assertThat(json.get("places")).hasSize(5);
        assertThat(json.get("places").get(0).get("contexts").asInt()).isEqualTo(16);
        assertThat(json.get("programs")).hasSize(32);
        Result code = run("bench", "places", "--config", config("code/L2.yaml"));
        assertThat(code.code()).isNotZero();
        assertThat(code.err()).contains("bench places").contains("no tool programs with places");
    }

    @Test
    void programBenchCountsWhatReplayingCosts() throws Exception {
        Result r = run("bench", "program", "--problems", "4", "--rounds", "2", "--warmup", "1", "--policy", "solver");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("divergences").asLong())
                .as("TaskTeam is deterministic")
                .isZero();
        assertThat(json.get("program_runs_per_problem").asDouble()).isGreaterThan(1.0);
        assertThat(json.get("replayed_share_of_calls").asDouble()).isStrictlyBetween(0.0, 1.0);
        assertThat(json.get("program_completions_per_problem").asDouble())
                .as("each candidate's run continues to its reward with fresh samples")
                .isGreaterThan(json.get("built_in_completions_per_problem").asDouble());
    }

    @Tag("heavy")
    @Test
    void modelBenchPrintsEngineThroughput() throws Exception {
        Result r = run("bench", "model", "--preset", "2m", "--seconds", "1");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.get("parameters").asLong()).isBetween(1_500_000L, 2_500_000L);
        for (String key : new String[] {
            "matmul_peak_gflops",
            "prefill_tokens_per_s",
            "decode_b1_tokens_per_s",
            "decode_b16_tokens_per_s",
            "decode_b64_tokens_per_s",
            "generate_b64_tokens_per_s",
            "train_lora_tokens_per_s",
            "train_full_tokens_per_s"
        }) {
            assertThat(json.get(key).asDouble()).as(key).isPositive();
        }
        assertThat(json.get("train_full_mfu").asDouble()).isBetween(0.0, 1.5);
    }

    /** One training step of plan-path L2 by the agent program {@code program} (its option and value), under {@code out}. */
    private static Args programRun(Path out, String... program) {
        return Args.of("train", config("plan-path/L2.yaml"))
                .with(program)
                .smallRun("fresh:tiny", out, 6)
                .set("train.steps=1");
    }

    @Tag("heavy")
    @Test
    void trainsAnAgentProgramWithGroupsMadeByReplay(@TempDir Path dir) throws Exception {
        Result r = run(programRun(dir, "--program", "team"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("step 1/1 | best-of-2 success").contains("greedy val ");
        JsonNode metrics = new ObjectMapper()
                .readTree(Files.readAllLines(dir.resolve("plan-path-L2/metrics.jsonl"))
                        .get(0));
        // a random model's tool programs fail, so each episode is 2 turns x 2 roles = 4 calls, 2 runs each
        assertThat(metrics.at("/program~1runs").asDouble()).isEqualTo(2 * 4 * 2);
        assertThat(metrics.at("/program~1divergences").asDouble()).isZero();

        // the same team as a LangGraph4j graph (in-process models) and with Spring AI (over the recording endpoint),
        // each given the config's task by its (Task, PromptStyle) constructor: the same calls, the same step
        for (String framework : List.of("GraphTeam", "SpringAiTeam")) {
            Result r2 = run(programRun(dir.resolve(framework), "--program", "org.pettingllms.examples." + framework));
            assertThat(r2.code()).as(r2.err()).isZero();
            JsonNode m2 = new ObjectMapper()
                    .readTree(Files.readAllLines(dir.resolve(framework + "/plan-path-L2/metrics.jsonl"))
                            .get(0));
            for (String key : List.of("/program~1runs", "/program~1divergences", "/reward~1plan~1mean", "/loss")) {
                assertThat(m2.at(key).asDouble())
                        .as(framework + " " + key)
                        .isEqualTo(metrics.at(key).asDouble());
            }
        }

        String script = Path.of(
                        CliTest.class.getResource("/programs/ask_both.py").toURI())
                .toString();
        Result process = run(programRun(dir.resolve("process"), "--program-command", "python3 '" + script + "'"));
        assertThat(process.code()).as(process.err()).isZero();
        JsonNode processMetrics = new ObjectMapper()
                .readTree(Files.readAllLines(dir.resolve("process/plan-path-L2/metrics.jsonl"))
                        .get(0));
        // 2 calls a run: call 0 in 2 runs, call 1 in 2 runs, for each of 2 problems
        assertThat(processMetrics.at("/program~1runs").asDouble()).isEqualTo(2 * 2 * 2);

        Result stray = run("train", config("plan-path/L2.yaml"), "--max-calls", "3");
        assertThat(stray.code()).isNotZero();
        assertThat(stray.err()).contains("--max-calls").contains("need --program");

        Result missing = run(programRun(dir.resolve("other"), "--program", "com.example.Missing"));
        assertThat(missing.code()).isNotZero();
        assertThat(missing.err())
                .contains("--program com.example.Missing: no such class")
                .doesNotContain("\tat ");
    }

    @Tag("heavy")
    @Test
    void trainRunsEndToEndOnTheEmbeddedEngineAndResumes(@TempDir Path dir) throws Exception {
        Args common = Args.of(config("plan-path/L2.yaml"))
                .smallRun("fresh:tiny", dir, 6)
                .set("task.maxTurns=2", "train.checkpointEvery=1");
        Result first = run(Args.of("train").with(common).set("train.steps=2"));
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out())
                .contains("step 1/2 | best-of-2 success")
                .contains("one sample solved tool")
                .contains("step 2/2")
                .contains("greedy val ");
        Path runDir = dir.resolve("plan-path-L2");
        assertThat(Files.readAllLines(runDir.resolve("metrics.jsonl"))).hasSize(2);
        JsonNode runJson =
                new ObjectMapper().readTree(runDir.resolve("run.json").toFile());
        assertThat(runJson.at("/config/policy/level").asText()).isEqualTo("L2");
        assertThat(runJson.at("/versions/pytorch").asText()).isEqualTo("2.7.1");
        // the README's paths: checkpoints/step-<N>/<role>/, N as the step lines print it, and latest
        assertThat(runDir.resolve("checkpoints/step-2/tool/adapter_model.safetensors"))
                .exists();
        assertThat(runDir.resolve("checkpoints/step-2/plan/adapter_config.json"))
                .exists();
        assertThat(runDir.resolve("checkpoints/latest/plan/adapter_config.json"))
                .exists();
        Args evaluate = Args.of("evaluate", config("plan-path/L2.yaml"))
                .set(
                        "policy.model=fresh:tiny",
                        "validation.problems=2",
                        "validation.sampling.maxTokens=6",
                        "task.maxTurns=2");
        Result adapters = run(evaluate.copy()
                .with(
                        "--adapters",
                        "tool=" + runDir.resolve("checkpoints/step-2/tool"),
                        "--adapters",
                        "plan=" + runDir.resolve("checkpoints/step-2/plan")));
        Result checkpoint = run(evaluate.copy()
                .with("--checkpoint", runDir.resolve("checkpoints").toString()));
        assertThat(checkpoint.code()).as(checkpoint.err()).isZero();
        assertThat(adapters.code()).as(adapters.err()).isZero();
        assertThat(checkpoint.out()).contains("loaded " + runDir.resolve("checkpoints/step-2"));
        String scores = adapters.out()
                .lines()
                .filter(l -> l.contains("success"))
                .findFirst()
                .orElseThrow()
                .replaceAll("\\d+\\.\\d+ s \\(.*", "");
        assertThat(checkpoint.out())
                .as("the same weights as --adapters")
                .contains(scores.substring(scores.indexOf("|")));
        assertThat(checkpoint.out().lines().filter(l -> l.startsWith("  ")).toList())
                .as("per-role rewards")
                .isEqualTo(
                        adapters.out().lines().filter(l -> l.startsWith("  ")).toList())
                .isNotEmpty();
        // rollout shows a trained run's transcripts through the same loader
        Result rollout = run(Args.of("rollout", config("plan-path/L2.yaml"), "--policy", "model")
                .set("policy.model=fresh:tiny", "rollout.sampling.maxTokens=6")
                .with(
                        "--problems",
                        "1",
                        "--checkpoint",
                        runDir.resolve("checkpoints").toString()));
        assertThat(rollout.code()).as(rollout.err()).isZero();
        assertThat(rollout.out())
                .contains("loaded " + runDir.resolve("checkpoints/step-2"))
                .contains("=== episode");
        Result scriptedWithCheckpoint = run(
                "rollout",
                config("plan-path/L2.yaml"),
                "--checkpoint",
                runDir.resolve("checkpoints").toString());
        assertThat(scriptedWithCheckpoint.code()).isEqualTo(2);
        assertThat(scriptedWithCheckpoint.err()).isEqualToIgnoringNewLines("error: --checkpoint needs --policy model");
        Result wrong = run(Args.of("evaluate", config("plan-path/L1.yaml"))
                .set("policy.model=fresh:tiny")
                .with("--checkpoint", runDir.resolve("checkpoints/step-2").toString()));
        assertThat(wrong.code()).isEqualTo(2);
        assertThat(wrong.err().lines().count()).as(wrong.err()).isEqualTo(1);
        assertThat(wrong.err()).contains("no folder 'shared'").contains("[plan, tool]");

        Result again = run(Args.of("train").with(common).set("train.steps=2"));
        assertThat(again.code()).isEqualTo(2);
        assertThat(again.err()).contains("--resume");

        Result resumed = run(Args.of("train").with(common).set("train.steps=3").with("--resume"));
        assertThat(resumed.code()).as(resumed.err()).isZero();
        assertThat(resumed.out()).contains("step 3/3").doesNotContain("step 1/3");
        assertThat(Files.readAllLines(runDir.resolve("metrics.jsonl"))).hasSize(3);

        Result report = run("report", runDir.toString());
        assertThat(report.code()).as(report.err()).isZero();
        String html = Files.readString(runDir.resolve("report.html"));
        assertThat(html)
                .contains("<h2>Success: training rollout")
                .contains("<h2>One sample solved")
                .contains("data:image/png;base64,")
                .contains("Reward per role")
                .contains("Latest validation transcripts")
                .contains("plan-path-v1 plan");
        assertThat(run("report", dir.toString()).err()).contains("no metrics.jsonl");
    }

    @Tag("heavy")
    @Test
    void everyLevelTrainsOnTheEmbeddedEngine(@TempDir Path dir) throws Exception {
        // L0: one agent with parallel-sampling GRPO; L1: one shared model, fully fine-tuned; L3: a model per role
        Map<String, List<String>> checkpointsOf = Map.of(
                "L0",
                List.of("step-1/plan/model.safetensors"),
                "L1",
                List.of("step-1/shared/model.safetensors"),
                "L3",
                List.of("step-1/tool/model.safetensors", "step-1/plan/model.safetensors"));
        for (String level : List.of("L0", "L1", "L3")) {
            Result r = run(Args.of("train", config("sokoban/" + level + ".yaml"))
                    .smallRun("fresh:tiny", dir, 4)
                    .set("task.maxTurns=1", "train.steps=1"));
            assertThat(r.code()).as("%s: %s", level, r.err()).isZero();
            assertThat(r.out()).as(level).containsPattern("step 1\\/1 \\| (best-of-\\d+ )?success");
            Path checkpoints = dir.resolve("sokoban-" + level).resolve("checkpoints");
            try (var files = Files.walk(checkpoints)) {
                List<String> written = files.map(
                                p -> checkpoints.relativize(p).toString().replace('\\', '/'))
                        .toList();
                for (String expected : checkpointsOf.get(level)) {
                    assertThat(written).as(level).anyMatch(p -> p.endsWith(expected));
                }
            }
        }
    }

    @Tag("heavy")
    @Test
    void aVisionTeamTrainsOnPicturesOfTheBoardAndTheReportShowsThem(@TempDir Path dir) throws Exception {
        // the board as a picture (task.options.view: image) for a fresh Qwen2.5-VL: rollouts, LoRA updates and
        // checkpoints with images, transcripts that keep them, a report that shows them
        Result r = run(Args.of("train", config("plan-path/L2.yaml"))
                .smallRun("fresh:vl-tiny", dir, 8)
                .set("task.options.view=image", "train.validateEvery=1", "train.checkpointEvery=1", "train.steps=1"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("step 1/1");
        Path runDir = dir.resolve("plan-path-L2");
        String transcript =
                Files.readAllLines(runDir.resolve("transcripts.jsonl")).get(0);
        assertThat(transcript).contains("\"images\":[\"data:image/png;base64,");
        assertThat(runDir.resolve("checkpoints/step-1/plan/adapter_model.safetensors"))
                .exists();
        Result report = run("report", runDir.toString());
        assertThat(report.code()).as(report.err()).isZero();
        assertThat(Files.readString(runDir.resolve("report.html"))).contains("<img alt=\"what the role saw\"");
        Result dry = run(Args.of("train", config("plan-path/L2.yaml"), "--dry-run")
                .set("policy.model=fresh:vl-tiny", "task.options.view=image"));
        assertThat(dry.code()).as(dry.err()).isZero();
        assertThat(dry.out())
                .contains("vision tower: 2 blocks, width 64")
                .contains("image 280 x 280 -> 280 x 280 -> 100 tokens")
                .contains("tokens with 1 image(s)");
        // a text model on pictures: one line naming the key, the role and the model
        Result text = run(Args.of("train", config("plan-path/L2.yaml"))
                .set(
                        "policy.model=fresh:tiny",
                        "task.options.view=image",
                        "run.outputDir=" + dir.resolve("text"),
                        "train.steps=1"));
        assertThat(text.code()).isEqualTo(2);
        assertThat(text.err().strip())
                .startsWith("error: config key 'policy.model': role 'tool' (policy fresh:tiny+tool): model 'fresh:tiny'"
                        + " (model_type qwen3) takes no images")
                .doesNotContain("\n");
        // the tower trains with the language model under full fine-tuning (L1: one shared model) and its checkpoint
        // holds it; LoRA adapters (L2) and text models refuse the setting in one line
        Result full = run(Args.of("train", config("plan-path/L1.yaml"))
                .set(
                        "policy.model=fresh:vl-tiny",
                        "task.options.view=image",
                        "engine.trainVisionTower=true",
                        "run.outputDir=" + dir.resolve("full"),
                        "rollout.problemsPerStep=2",
                        "rollout.k=2",
                        "rollout.sampling.maxTokens=8",
                        "validation.problems=0",
                        "train.checkpointEvery=1",
                        "train.steps=1"));
        assertThat(full.code()).as(full.err()).isZero();
        try (var files = Files.walk(dir.resolve("full"))) {
            Path weights = files.filter(f -> f.getFileName().toString().equals("model.safetensors"))
                    .findFirst()
                    .orElseThrow();
            assertThat(org.pettingllms.torch.io.SafeTensors.read(weights))
                    .containsKey("visual.patch_embed.proj.weight");
        }
        for (String[] c : new String[][] {
            {"plan-path/L2.yaml", "fresh:vl-tiny", "role 'plan' trains LoRA adapter 'plan'"},
            {"plan-path/L1.yaml", "fresh:tiny", "has no vision tower"}
        }) {
            Result refused = run(Args.of("train", config(c[0]))
                    .set(
                            "policy.model=" + c[1],
                            "engine.trainVisionTower=true",
                            "run.outputDir=" + dir.resolve("refused"),
                            "train.steps=1"));
            assertThat(refused.code()).as(c[0]).isEqualTo(2);
            assertThat(refused.err().strip())
                    .startsWith("error: config key 'engine.trainVisionTower': ")
                    .contains(c[2])
                    .doesNotContain("\n");
        }
    }

    /** Training {@code config} with {@code role} scripted, a fresh tiny model for the other, under {@code dir}. */
    private static Args scriptedRun(String config, String role, Path dir) {
        return Args.of("train", config(config), "--scripted", role)
                .set("policy.model=fresh:tiny", "run.outputDir=" + dir);
    }

    @Tag("heavy")
    @Test
    void aScriptedRoleActsButOnlyTheOtherRoleTrains(@TempDir Path dir) throws Exception {
        Result r = run(scriptedRun("plan-path/L2.yaml", "tool", dir)
                .set(
                        "rollout.problemsPerStep=2",
                        "rollout.k=2",
                        "validation.problems=0",
                        "task.maxTurns=1",
                        "train.steps=1"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("one sample solved tool 100%");
        var rows = MetricsLog.read(dir.resolve("plan-path-L2/metrics.jsonl"));
        assertThat(rows.get(0).values())
                .containsKey("train/loss/fresh:tiny+plan")
                .doesNotContainKey("train/loss/fresh:tiny+tool");
        // a dataset task's scripted role knows the problems the run trains and validates on (generated ones too)
        Result code = run(scriptedRun("code/L2.yaml", "tester", dir)
                .set(
                        "rollout.problemsPerStep=2",
                        "rollout.k=2",
                        "validation.problems=2",
                        "task.maxTurns=1",
                        "train.steps=1"));
        assertThat(code.code()).as(code.err()).isZero();
        var codeRow =
                MetricsLog.read(dir.resolve("code-L2/metrics.jsonl")).get(0).values();
        assertThat(codeRow.getOrDefault("sampled/tester/unparseable", 0.0)).isZero();
        assertThat(codeRow).doesNotContainKey("val/stop/tester/unparseable").containsKey("val/success/rate");
        assertThat(codeRow.get("val/reward/tester/local").doubleValue()).isEqualTo(1.0);
        Result l1 = run(scriptedRun("plan-path/L1.yaml", "tool", dir));
        assertThat(l1.code()).isNotZero();
        assertThat(l1.err()).contains("--scripted needs a policy per role");
    }

    @Test
    void errorsAreOneLineForPeopleAndStackTracesOnlyWithDebug(@TempDir Path dir) throws Exception {
        String l2 = config("plan-path/L2.yaml");
        // a missing file
        Result missing = run("train", dir.resolve("nope.yaml").toString());
        assertThat(missing.code()).isNotZero();
        assertThat(missing.err().lines().toList())
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).startsWith("error: ").contains("nope.yaml"));
        // a malformed config
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "task: {name: plan-path\nrollout: [");
        Result malformed = run("train", bad.toString());
        assertThat(malformed.code()).isEqualTo(2);
        assertThat(malformed.err().lines().toList())
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("bad.yaml").contains("line"));
        // a bad adapter directory
        Result adapter = run("evaluate", l2, "--set", "policy.model=fresh:tiny", "--adapters", "tool=" + dir);
        assertThat(adapter.code()).isNotZero();
        assertThat(adapter.err().lines().filter(l -> l.startsWith("error: ")).toList())
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains(dir.toString()).contains("adapter_config.json"));
        assertThat(adapter.err()).doesNotContain("\tat ");
        // an unknown preset
        Result preset = run("train", l2, "--set", "policy.model=fresh:huge", "--set", "run.outputDir=" + dir);
        assertThat(preset.code()).isNotZero();
        assertThat(preset.err().lines().filter(l -> l.startsWith("error: ")).toList())
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("huge").contains("tiny, 2m, 20m"));
        assertThat(preset.err()).doesNotContain("\tat ");
        // the stack trace on request
        Result debug = run("evaluate", l2, "--set", "policy.model=fresh:tiny", "--adapters", "tool=" + dir, "--debug");
        assertThat(debug.err()).contains("\tat ");
    }

    @Test
    void singleAgentBaselinesUseParallelSampling() throws Exception {
        // reference defect 8: single-agent "GRPO" baselines that were really tree sampling
        try (var files = Files.walk(CONFIGS)) {
            var l0 = files.filter(p -> p.getFileName().toString().equals("L0.yaml"))
                    .sorted()
                    .toList();
            assertThat(l0).hasSize(11);
            for (Path c : l0) {
                var cfg = ConfigLoader.load(c, List.of());
                assertThat(cfg.rollout().mode()).as("%s", c).isEqualTo(RolloutConfig.Mode.PARALLEL);
                assertThat(cfg.rollout().k())
                        .as("%s: a group needs K > 1 trajectories", c)
                        .isGreaterThan(1);
                assertThat(cfg.task().roles()).as("%s", c).hasSize(1);
            }
        }
        TableCommand table = new TableCommand();
        table.home = Path.of("..");
        table.steps = 1;
        table.problemsPerStep = 2;
        table.evalProblems = 2;
        table.overrides.add("rollout.mode=tree");
        for (String game : List.of("plan-path", "sokoban", "sudoku")) {
            var row = table.setup(game, "L0", 1, "L0-trained");
            assertThat(row.config().rollout().mode())
                    .as(game + ": the + GRPO row, even with rollout.mode=tree set")
                    .isEqualTo(RolloutConfig.Mode.PARALLEL);
        }
    }

    @Tag("heavy")
    @Test
    void trainSendsItsRolloutsToAServeReplica(@TempDir Path dir) throws Exception {
        String model = Path.of("..", "models", "plan-path-tiny")
                .toAbsolutePath()
                .normalize()
                .toString();
        try (var engine = EmbeddedEngine.forServing(model, "cpu");
                var server = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 64))
                        .start()) {
            String[] replica = {"rollout.servers=[" + server.uri() + "]", "rollout.servedModel=tiny"};
            Result r = run(Args.of("train", config("plan-path/L2.yaml"))
                    .set("policy.model=" + model)
                    .set(replica)
                    .set(
                            "run.outputDir=" + dir,
                            "rollout.problemsPerStep=2",
                            "rollout.k=2",
                            "validation.problems=0",
                            "task.maxTurns=1",
                            "train.steps=2",
                            "task.options.tool=answer"));
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).contains("rollouts on [" + server.uri() + "]").contains("step 2/2");
            assertThat(dir.resolve("plan-path-L2/published")).isDirectory();

            // evaluate and rollout take the same keys through the same backend: the checkpoint's adapters are
            // loaded on the replica and the greedy episodes there are those of the same checkpoint in-process
            Args evaluate = Args.of("evaluate", config("plan-path/L2.yaml"))
                    .set(
                            "policy.model=" + model,
                            "run.outputDir=" + dir,
                            "validation.problems=6",
                            "task.maxTurns=1",
                            "task.options.tool=answer")
                    .with(
                            "--checkpoint",
                            dir.resolve("plan-path-L2/checkpoints").toString());
            Result local = run(evaluate);
            Result remote = run(evaluate.copy().set(replica));
            assertThat(local.code()).as(local.err()).isZero();
            assertThat(remote.code()).as(remote.err()).isZero();
            assertThat(remote.out()).contains("rollouts on [" + server.uri() + "]");
            assertThat(local.out()).doesNotContain("rollouts on");
            java.util.regex.Pattern rate = java.util.regex.Pattern.compile("success [0-9.]+% \\| mean turns [0-9.]+");
            var l = rate.matcher(local.out());
            var m = rate.matcher(remote.out());
            assertThat(l.find()).as(local.out()).isTrue();
            assertThat(m.find()).as(remote.out()).isTrue();
            assertThat(m.group()).isEqualTo(l.group());

            Result rollout = run(Args.of("rollout", config("plan-path/L2.yaml"), "--policy", "model", "--problems", "2")
                    .set(
                            "policy.model=" + model,
                            "run.outputDir=" + dir,
                            "rollout.k=2",
                            "task.maxTurns=1",
                            "task.options.tool=answer")
                    .set(replica)
                    .with(
                            "--checkpoint",
                            dir.resolve("plan-path-L2/checkpoints").toString()));
            assertThat(rollout.code()).as(rollout.err()).isZero();
            assertThat(rollout.out())
                    .contains("rollouts on [" + server.uri() + "]")
                    .contains("success");
        }
        Result bad = run(Args.of("train", config("plan-path/L2.yaml"))
                .set("policy.model=fresh:tiny", "rollout.servers=[gpu1:8000]", "run.outputDir=" + dir.resolve("bad")));
        assertThat(bad.code()).isNotZero();
        assertThat(bad.err()).contains("rollout").contains("gpu1:8000").contains("http://host:8000");
    }

    @Tag("heavy")
    @Test
    void sftWritesAModelWithACardThatTrainCanStartFrom(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("model");
        Result r = run(Args.of("sft", config("sudoku/L1.yaml"))
                .set("policy.model=fresh:tiny")
                .with("--steps", "3", "--batch", "4", "--eval", "4", "--out", model.toString())
                .set("validation.sampling.maxTokens=8", "task.maxTurns=1"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("step 3/3 | loss").contains("greedy success on 4 validation problems");
        assertThat(model.resolve("config.json")).exists();
        assertThat(model.resolve("model.safetensors")).exists();
        assertThat(Files.readString(model.resolve("README.md")))
                .contains("sudoku-v2")
                .contains("greedy success before RL");
        Result train = run(Args.of("train", config("sudoku/L1.yaml"))
                .set(
                        "policy.model=" + model,
                        "run.outputDir=" + dir,
                        "train.steps=1",
                        "rollout.problemsPerStep=2",
                        "rollout.k=2",
                        "rollout.sampling.maxTokens=6",
                        "validation.problems=0",
                        "task.maxTurns=1"));
        assertThat(train.code()).as(train.err()).isZero();
        assertThat(dir.resolve("sudoku-L1/checkpoints/step-1/shared/model.safetensors"))
                .exists();
    }
}
