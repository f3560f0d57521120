package org.pettingllms.envs.data;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.pettingllms.core.config.ConfigException;

/**
 * Where a dataset task's items come from, from its options: data files ({@code task.options.train} and
 * {@code task.options.test}, read by the task's own row reader) or a named generator. Shared by every task whose
 * problems are rows of a file; each task's provider binds its own options ({@link DatasetOptions}) and calls these.
 */
public final class DatasetSources {
    private DatasetSources() {}

    /**
     * The items {@code options} name: the generator's when one is named, else the data files' rows.
     *
     * @param generatorName the task's generator, the one name {@code task.options.generator} may take
     * @param generator     the row of a seed; deterministic
     * @param reader        a data file's rows, in file order
     */
    public static <T> Items<T> items(
            DatasetOptions options,
            String generatorName,
            LongFunction<T> generator,
            Function<Path, List<T>> reader,
            Class<T> type) {
        return options.generator().isBlank()
                ? files(options.train(), options.test(), reader, type)
                : generated(options.generator(), generatorName, options.train(), options.test(), generator);
    }

    /** Items from files: the train file (optional: a run that only evaluates needs none) and the test file. */
    private static <T> Items<T> files(String train, String test, Function<Path, List<T>> reader, Class<T> type) {
        return new Items.Listed<>(load(train, "train", false, reader), load(test, "test", true, reader), type);
    }

    /** Items from the task's generator, checked: its name, and no data files beside it. */
    private static <T> Items<T> generated(
            String name, String expected, String train, String test, LongFunction<T> generator) {
        if (!name.equals(expected)) {
            throw new ConfigException("config key 'task.options.generator': unknown generator '" + name + "'; expected "
                    + expected + " (or leave it empty and set train and test files)");
        }
        if (!train.isBlank() || !test.isBlank()) {
            throw new ConfigException("config key 'task.options.generator': problems are generated, so 'train' and"
                    + " 'test' must be empty (got train '" + train + "', test '" + test + "')");
        }
        return new Items.Generated<>(name, generator);
    }

    private static <T> List<T> load(String path, String key, boolean required, Function<Path, List<T>> reader) {
        if (path.isBlank()) {
            if (required) {
                throw new ConfigException("config key 'task.options." + key + "': missing; expected a dataset file"
                        + " (.jsonl, .json or .parquet)");
            }
            return List.of();
        }
        return reader.apply(resolve(path, key));
    }

    /** Relative paths are tried against the working directory, then the installation directory (PETTINGLLMS_HOME). */
    public static Path resolve(String path, String key) {
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
