package org.pettingllms.envs.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.code.CodeRunner;
import org.pettingllms.envs.code.CodeTask;
import org.pettingllms.envs.code.FunctionTasks;
import org.pettingllms.envs.data.MathRows.MathItem;
import org.pettingllms.envs.math.MathTask;
import org.pettingllms.envs.math.WordProblems;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** Makes the dataset tasks by name: {@code math} ({@code math-v1}) and {@code code} ({@code code-v1}). */
public final class DatasetTasks implements TaskProvider {
    /**
     * @param train             training data file (JSONL, JSON or Parquet); empty for evaluation only
     * @param test              test data file
     * @param generator         instead of files, generated problems: {@code arithmetic} ({@link WordProblems})
     * @param toolTimeoutSeconds wall-clock limit of the tool's program
     * @param sandboxSlots      programs run at once; 0: one per CPU
     */
    public record MathOptions(String train, String test, String generator, int toolTimeoutSeconds, int sandboxSlots) {
        public static final MathOptions DEFAULT = new MathOptions("", "", "", 20, 0);
    }

    /**
     * @param generator      instead of files, generated problems: {@code functions} ({@link FunctionTasks})
     * @param timeoutSeconds wall-clock limit of one program on one test
     * @param maxTests       ground-truth tests run per program (the first ones)
     * @param maxTesterTests tests taken from one tester answer
     */
    public record CodeOptions(String train, String test, String generator, int timeoutSeconds, int maxTests,
                              int maxTesterTests, int sandboxSlots) {
        public static final CodeOptions DEFAULT = new CodeOptions("", "", "", 5, 20, 5, 0);

        public CodeOptions {
            if (timeoutSeconds < 1 || maxTests < 1 || maxTesterTests < 1 || sandboxSlots < 0) {
                throw new IllegalArgumentException("timeoutSeconds, maxTests and maxTesterTests must be >= 1,"
                        + " sandboxSlots >= 0");
            }
        }
    }

    @Override
    public Set<String> names() {
        return Set.of("math", "code");
    }

    @Override
    public Task<?> create(RunConfig.TaskSpec spec) {
        String src = "task.options";
        if (spec.name().equals("math")) {
            MathOptions o = ConfigLoader.bindOptions(spec.options(), MathOptions.DEFAULT, "task.options.", src);
            List<String> roles = spec.roles().isEmpty() ? List.of(MathTask.TOOL, MathTask.REASONER) : spec.roles();
            Sandbox box = roles.contains(MathTask.TOOL) ? sandbox(o.sandboxSlots()) : null;
            return new MathTask(roles, spec.maxTurns(), mathItems(o), box, Duration.ofSeconds(o.toolTimeoutSeconds()));
        }
        CodeOptions o = ConfigLoader.bindOptions(spec.options(), CodeOptions.DEFAULT, "task.options.", src);
        List<String> roles = spec.roles().isEmpty() ? List.of(CodeTask.CODER, CodeTask.TESTER) : spec.roles();
        Sandbox box = sandbox(o.sandboxSlots());
        CodeRunner runner = new CodeRunner(box, box.limits().withWallTime(Duration.ofSeconds(o.timeoutSeconds())));
        Items<CodeItem> items = o.generator().isBlank()
                ? new Items.Listed<>(load(o.train(), "train", false, CodeRows::load),
                        load(o.test(), "test", true, CodeRows::load), CodeItem.class)
                : generated(o.generator(), FunctionTasks.NAME, o.train(), o.test(),
                        seed -> FunctionTasks.of(seed).item());
        return new CodeTask(roles, spec.maxTurns(), items, runner, o.maxTests(), o.maxTesterTests());
    }

    private static Items<MathItem> mathItems(MathOptions o) {
        if (o.generator().isBlank()) {
            return new Items.Listed<>(load(o.train(), "train", false, MathRows::load),
                    load(o.test(), "test", true, MathRows::load), MathItem.class);
        }
        return generated(o.generator(), WordProblems.NAME, o.train(), o.test(), seed -> WordProblems.of(seed).item());
    }

    /** The task's generator, checked: its name, and no data files beside it. */
    private static <T> Items<T> generated(String name, String expected, String train, String test,
                                          LongFunction<T> generator) {
        if (!name.equals(expected)) {
            throw new ConfigException("config key 'task.options.generator': unknown generator '" + name
                    + "'; expected " + expected + " (or leave it empty and set train and test files)");
        }
        if (!train.isBlank() || !test.isBlank()) {
            throw new ConfigException("config key 'task.options.generator': problems are generated, so 'train' and"
                    + " 'test' must be empty (got train '" + train + "', test '" + test + "')");
        }
        return new Items.Generated<>(name, generator);
    }

    private static Sandbox sandbox(int slots) {
        return Sandbox.create(SandboxLimits.DEFAULT, slots > 0 ? slots : Runtime.getRuntime().availableProcessors());
    }

    private static <T> List<T> load(String path, String key, boolean required, Function<Path, List<T>> loader) {
        if (path.isBlank()) {
            if (required) {
                throw new ConfigException("config key 'task.options." + key + "': missing; expected a dataset file"
                        + " (.jsonl, .json or .parquet)");
            }
            return List.of();
        }
        return loader.apply(resolve(path, key));
    }

    /** Relative paths are tried against the working directory, then the installation directory (PETTINGLLMS_HOME). */
    static Path resolve(String path, String key) {
        Path p = Path.of(path);
        if (p.isAbsolute() || Files.exists(p)) {
            return p;
        }
        String home = System.getenv("PETTINGLLMS_HOME");
        if (home == null) {
            home = System.getProperty("pettingllms.home"); // set by the build for tests run from module folders
        }
        if (home != null && Files.exists(Path.of(home).resolve(p))) {
            return Path.of(home).resolve(p);
        }
        throw new ConfigException("config key 'task.options." + key + "': dataset file '" + path + "' not found"
                + " (looked in " + Path.of("").toAbsolutePath() + (home != null ? " and " + home : "") + ")");
    }
}
