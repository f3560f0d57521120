package org.pettingllms.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.core.util.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code table}: the shape of the paper's Tables 1-3 at our scale. For each task and seed: the single agent and the
 * two-role team (tool + plan, tool + reasoner, coder + tester) without training, the single agent after GRPO
 * (parallel sampling), the team after AT-GRPO with one shared model (L1) and with one LoRA adapter per role (L2),
 * and the L2 team with its two adapters swapped between the roles, and with one role's adapter swapped at a time (that
 * role plays on the other's adapter, the other keeps its own), which shows whose specialisation a collapse comes from.
 * For a task that counts its tool's programs against a catalog (the planning games), a last row gives the share of
 * the trained L2 tool's greedy programs that are none of the game's flawed programs. Every trained row gets the
 * same step budget;
 * success is greedy, on the test split (each seed draws its own problems; every row of a seed plays the same ones).
 * Writes a markdown table ({@link TableMarkdown}: mean and range over the seeds), then each game's learning curve from
 * its trained runs ({@link LearningCurve}).
 */
@Command(
        name = "table",
        mixinStandardHelpOptions = true,
        description =
                "Reproduce the shape of the paper's tables on the planning games, math, code, SQL, Verilog, search and"
                        + " the science lab and the household (a benchmark: long).")
final class TableCommand implements Callable<Integer> {
    static final List<String> METHODS = List.of(
            "single agent",
            "single agent + GRPO",
            "team (no training)",
            "team + AT-GRPO, shared model (L1)",
            "team + AT-GRPO, adapter per role (L2)",
            "L2 with the roles' adapters swapped",
            "L2, first role on the second's adapter",
            "L2, second role on the first's adapter");

    /** The extra row: share of the trained L2 tool's greedy programs that no flawed catalog program equals. */
    static final String NEW_PROGRAMS = "L2 tool's greedy programs outside the flawed catalog";

    @Option(
            names = "--games",
            split = ",",
            defaultValue = "plan-path,sokoban,sudoku",
            description =
                    "tasks with a two-role team and L0-L2 configs (plan-path, sokoban, sudoku, math, code, sql, verilog,"
                            + " search, vision-plan-path, science, household)")
    List<String> games;

    @Option(names = "--seeds", split = ",", defaultValue = "1,2,3", description = "run seeds (at least 2 for a spread)")
    List<Long> seeds;

    @Option(names = "--steps", description = "training steps of every trained row (default: each game's L2 config)")
    Integer steps;

    @Option(names = "--problems", description = "problems per training step (default: each game's L2 config)")
    Integer problemsPerStep;

    @Option(names = "--eval", defaultValue = "200", description = "test problems per evaluation")
    int evalProblems;

    @Option(names = "--first-problem", defaultValue = "0", description = "index of the first test problem")
    long firstProblem;

    @Option(names = "--out", defaultValue = "runs/table/table.md", description = "markdown output file")
    Path out;

    @Option(
            names = "--resume",
            description = "keep the cells an interrupted run of the same table already measured (recorded beside"
                    + " --out, in <out>.cells.jsonl)")
    boolean resume;

    @Option(
            names = "--rows",
            split = ",",
            defaultValue = "single,team,l1,l2",
            description = "the rows to measure (default all): single (the single agent, untrained and + GRPO), team"
                    + " (untrained), l1, l2 (L2 and its swaps); the others print as '-' (to re-measure the rows a"
                    + " change touched)")
    List<String> rows;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override a value of every run's config")
    List<String> overrides = new ArrayList<>();

    /** The installation directory, whose {@code configs/} the rows use. */
    Path home = Path.of(System.getenv().getOrDefault("PETTINGLLMS_HOME", "."));

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        for (String r : rows) {
            if (!List.of("single", "team", "l1", "l2").contains(r)) {
                throw new IllegalArgumentException("--rows: single, team, l1 or l2, got '" + r + "'");
            }
        }
        Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>(); // method -> game -> per seed
        METHODS.forEach(m -> results.put(m, new LinkedHashMap<>()));
        results.put(NEW_PROGRAMS, new LinkedHashMap<>());
        long start = System.nanoTime();
        if (Smoke.on(Main.env(spec))) {
            seeds = seeds.subList(0, Math.min(seeds.size(), 2));
            evalProblems = Math.min(evalProblems, 2);
        }
        Path cellsFile = out.resolveSibling(out.getFileName() + ".cells.jsonl");
        TableCells cells = TableCells.open(cellsFile, settings(), resume);
        if (cells.size() > 0) {
            o.printf("resuming: %d cells already measured (%s)%n", cells.size(), cellsFile);
            o.flush();
        }
        for (String game : games) {
            for (long seed : seeds) {
                String l0 = configHash(game, "L0", seed);
                String l1 = configHash(game, "L1", seed);
                String l2 = configHash(game, "L2", seed);
                if (rows.contains("single")) {
                    add(results, 0, game, measured(cells, game, seed, 0, l0, () -> evaluate(game, "L0", seed, false)));
                    add(results, 1, game, measured(cells, game, seed, 1, l0, () -> evaluate(game, "L0", seed, true)));
                }
                if (rows.contains("team")) {
                    add(results, 2, game, measured(cells, game, seed, 2, l1, () -> evaluate(game, "L1", seed, false)));
                }
                if (rows.contains("l1")) {
                    add(results, 3, game, measured(cells, game, seed, 3, l1, () -> evaluate(game, "L1", seed, true)));
                }
                if (!rows.contains("l2")) {
                    o.printf("%s seed %d done | %.0f s so far%n", game, seed, (System.nanoTime() - start) / 1e9);
                    o.flush();
                    continue;
                }
                // one L2 run gives the last four rows' cells (and the share of new programs where the task counts them)
                if (METHODS.subList(4, METHODS.size()).stream()
                        .anyMatch(m -> cells.get(game, seed, m, l2).isEmpty())) {
                    TrainedAndSwapped run = trainL2AndSwap(game, seed);
                    cells.put(game, seed, METHODS.get(4), run.trained(), l2);
                    cells.put(game, seed, METHODS.get(5), run.swapped(), l2);
                    cells.put(game, seed, METHODS.get(6), run.firstSwapped(), l2);
                    cells.put(game, seed, METHODS.get(7), run.secondSwapped(), l2);
                    if (run.newPrograms() >= 0) {
                        cells.put(game, seed, NEW_PROGRAMS, run.newPrograms(), l2);
                    }
                }
                for (int m = 4; m < METHODS.size(); m++) {
                    add(
                            results,
                            m,
                            game,
                            cells.get(game, seed, METHODS.get(m), l2).getAsDouble());
                }
                cells.get(game, seed, NEW_PROGRAMS, l2)
                        .ifPresent(v -> results.get(NEW_PROGRAMS)
                                .computeIfAbsent(game, g -> new ArrayList<>())
                                .add(v));
                o.printf("%s seed %d done | %.0f s so far%n", game, seed, (System.nanoTime() - start) / 1e9);
                o.flush();
            }
        }
        String table = markdown(results) + curves();
        Files.createDirectories(out.toAbsolutePath().getParent());
        AtomicFiles.writeString(out, table);
        o.println();
        o.print(table);
        o.printf("%nwritten to %s (%.0f s)%n", out, (System.nanoTime() - start) / 1e9);
        o.flush();
        return 0;
    }

    /**
     * Each game's learning curve from its trained L1 and L2 runs' metrics (in quarters of the budget); a run whose
     * folder is gone (a resumed table's cells measured elsewhere) is left out.
     */
    String curves() throws IOException {
        Map<String, List<LearningCurve.Window>> curves = new LinkedHashMap<>();
        RunConfig l2Config = null;
        for (String game : games) {
            List<List<StepReport>> l1 = new ArrayList<>();
            List<List<StepReport>> l2 = new ArrayList<>();
            for (long seed : seeds) {
                l1.add(metrics(setup(game, "L1", seed, "L1-trained").config()));
                l2Config = setup(game, "L2", seed, "L2-trained").config();
                l2.add(metrics(l2Config));
            }
            curves.put(
                    game, LearningCurve.of(l1, l2, Math.max(1, (l2Config.train().steps() + 3) / 4)));
        }
        // one game's problems per step are stated; several games' may differ
        int perStep = games.size() == 1 ? l2Config.rollout().problemsPerStep() : 0;
        return LearningCurve.markdown(curves, seeds.size(), perStep);
    }

    private static List<StepReport> metrics(RunConfig cfg) throws IOException {
        Path file = runDir(cfg).resolve("metrics.jsonl");
        return Files.exists(file) ? MetricsLog.read(file) : List.of();
    }

    /** Where a table row's training run writes (and {@link #train} starts afresh). */
    private static Path runDir(RunConfig cfg) {
        return Path.of(cfg.run().outputDir()).resolve(cfg.run().name());
    }

    /**
     * A cell's success: recorded by an earlier run (with --resume) under the same config, or measured now and
     * recorded.
     */
    private static double measured(
            TableCells cells, String game, long seed, int method, String config, Callable<Double> measure)
            throws Exception {
        var known = cells.get(game, seed, METHODS.get(method), config);
        if (known.isPresent()) {
            return known.getAsDouble();
        }
        double success = measure.call();
        cells.put(game, seed, METHODS.get(method), success, config);
        return success;
    }

    /**
     * The hash of the resolved config a level's cells of a game and seed are measured with (SHA-256 of its JSON tree,
     * where the run writes aside; the first 16 hex digits): editing a game's config (its model path, a rate, the budget)
     * changes it, so a resumed table does not reuse cells measured before the edit. The model's weights are not
     * hashed: a model rebuilt at the same path is not noticed.
     */
    String configHash(String game, String level, long seed) {
        ObjectNode tree =
                (ObjectNode) ConfigLoader.toTree(setup(game, level, seed, "-").config());
        ((ObjectNode) tree.get("run")).remove(List.of("name", "outputDir"));
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256").digest(tree.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }

    private static void add(Map<String, Map<String, List<Double>>> results, int method, String game, double success) {
        results.get(METHODS.get(method))
                .computeIfAbsent(game, g -> new ArrayList<>())
                .add(success);
    }

    /** What every cell of this table is measured with: cells measured with other settings are not mixed in. */
    String settings() {
        return "steps=" + (steps != null ? steps : "L2") + " problems="
                + (problemsPerStep != null ? problemsPerStep : "L2") + " eval=" + evalProblems + " first="
                + firstProblem + " set=" + overrides;
    }

    RunSetup setup(String game, String level, long seed, String tag) {
        List<String> sets = new ArrayList<>(overrides);
        sets.addAll(List.of(
                "run.seed=" + seed,
                "run.name=table/" + game + "/" + tag + "-seed" + seed,
                "validation.problems=" + evalProblems,
                "validation.firstProblem=" + firstProblem,
                "train.validateEvery=0",
                "train.checkpointEvery=0"));
        // every row of a game plays the L2 config's turns, and every trained row gets its budget unless the command
        // line names one
        RunConfig l2 = RunSetup.load(
                        home.resolve("configs").resolve(game).resolve("L2.yaml"), overrides, Main.env(spec))
                .config();
        sets.add("task.maxTurns=" + l2.task().maxTurns());
        sets.add("train.steps=" + (steps != null ? steps : l2.train().steps()));
        sets.add("rollout.problemsPerStep="
                + (problemsPerStep != null ? problemsPerStep : l2.rollout().problemsPerStep()));
        if (level.equals("L0")) {
            // the single agent + GRPO row samples K independent trajectories (reference defect 8: the reference's
            // single-agent baselines were tree-sampled); no override may turn it into tree sampling
            sets.add("rollout.mode=parallel");
        }
        Path config = home.resolve("configs").resolve(game).resolve(level + ".yaml");
        return RunSetup.load(config, sets, Main.env(spec));
    }

    /** Greedy test success of the level's base policies, after {@code steps} training steps when {@code train}. */
    private double evaluate(String game, String level, long seed, boolean train) throws Exception {
        RunSetup s = setup(game, level, seed, level + (train ? "-trained" : "-base"));
        try (LocalEngine engine = new LocalEngine(s.config(), s.policies());
                Backend backend = backend(s, engine)) {
            if (train) {
                train(s, backend);
            }
            backend.load(engine, s, null); // the trained weights, where the sampler reads published ones
            return success(s, backend, s.policies());
        }
    }

    /**
     * Trains L2, then evaluates it as trained, with the two roles' adapters exchanged, and with one role at a time on
     * the other's adapter; {@code newPrograms} is the share of the trained tool's greedy programs outside the flawed
     * catalog, -1 where the task does not count them.
     */
    private record TrainedAndSwapped(
            double trained, double swapped, double firstSwapped, double secondSwapped, double newPrograms) {}

    private TrainedAndSwapped trainL2AndSwap(String game, long seed) throws Exception {
        RunSetup s = setup(game, "L2", seed, "L2-trained");
        try (LocalEngine engine = new LocalEngine(s.config(), s.policies());
                Backend backend = backend(s, engine)) {
            train(s, backend);
            backend.load(engine, s, null);
            s.task().drainMetrics(); // what training counted
            double trained = success(s, backend, s.policies());
            double newPrograms = newProgramShare(s.task().drainMetrics());
            List<String> roles = s.task().roles();
            if (roles.size() != 2) {
                throw new IllegalArgumentException(game + ": the table swaps the adapters of a two-role team, but"
                        + " its L2 config has the roles " + roles);
            }
            String a = roles.get(0);
            String b = roles.get(1);
            var pa = s.policies().policyOf(a);
            var pb = s.policies().policyOf(b);
            return new TrainedAndSwapped(
                    trained,
                    success(s, backend, new PolicyMap(Map.of(a, pb, b, pa), Set.of())),
                    success(s, backend, new PolicyMap(Map.of(a, pb, b, pb), Set.of())),
                    success(s, backend, new PolicyMap(Map.of(a, pa, b, pa), Set.of())),
                    newPrograms);
        }
    }

    /**
     * The share of the tool's programs that are none of the game's flawed programs, from the counters a planning
     * task reports ({@code tool/programs_catalog_*}, {@code tool/programs_other}); -1 when there are none.
     */
    static double newProgramShare(Map<String, Double> metrics) {
        double flawed = metrics.getOrDefault("tool/programs_catalog_flawed", 0.0);
        double other = metrics.getOrDefault("tool/programs_catalog_correct", 0.0)
                + metrics.getOrDefault("tool/programs_other", 0.0);
        return flawed + other == 0 ? -1 : other / (flawed + other);
    }

    /** The config's sampler and learner ({@link Backend}: a table's {@code --set} may name a service or servers). */
    private Backend backend(RunSetup s, LocalEngine engine) {
        return Backend.open(s.config(), engine, s::firstPrompt, Main.env(spec));
    }

    private static void train(RunSetup s, Backend backend) throws Exception {
        RunConfig cfg = s.config();
        Path dir = runDir(cfg);
        AtomicFiles.deleteTree(dir); // a table run starts its rows afresh
        new Trainer(
                        cfg,
                        s.task(),
                        s.task().problems(cfg.run().seed()),
                        s.policies(),
                        backend.sampler(),
                        backend.learner(),
                        dir,
                        new ProgressBar("  " + cfg.run().name()))
                .run(false);
    }

    private static double success(RunSetup s, Backend backend, PolicyMap policies) {
        return s.validate(backend.sampler(), policies, RolloutProgress.NONE, Split.TEST)
                .successRate();
    }

    String markdown(Map<String, Map<String, List<Double>>> results) {
        return new TableMarkdown(games, seeds, evalProblems, firstProblem, steps, problemsPerStep).of(results);
    }

    /** A share's cell, as {@link TableMarkdown#share} writes it. */
    static String share(List<Double> v) {
        return TableMarkdown.share(v);
    }

    /** A success cell, as {@link TableMarkdown#cell(List, int)} writes it. */
    static String cell(List<Double> v, int problems) {
        return TableMarkdown.cell(v, problems);
    }
}
