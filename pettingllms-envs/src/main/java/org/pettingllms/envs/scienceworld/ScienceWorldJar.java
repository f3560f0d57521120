package org.pettingllms.envs.scienceworld;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.config.ConfigException;

/**
 * ScienceWorld (Wang et al. 2022) driven in this process from the jar its Python package ships
 * ({@code scienceworld-*.jar}): the jar is loaded in a class loader of its own and its
 * {@code scienceworld.runtime.pythonapi.PythonInterface} is called as the Python package calls it over py4j
 * ({@code load}, {@code step}, {@code getScore}, {@code getCompleted}, {@code getValidActionObjectCombinations}, ...),
 * so its 30 tasks need no Python. One instance is one simulator (not thread-safe: {@link ScienceWorldTask} keeps one
 * per thread).
 */
public final class ScienceWorldJar {
    static final String ENTRY = "scienceworld.runtime.pythonapi.PythonInterface";

    private final Object env;

    private ScienceWorldJar(Object env) {
        this.env = env;
    }

    /** A class loader for the jar, shared by the simulators made from it. */
    static URLClassLoader loader(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new ConfigException("config key 'task.options.jar': no file " + jar
                    + " (the scienceworld-*.jar of ScienceWorld's Python package)");
        }
        try {
            URLClassLoader l =
                    new URLClassLoader(new URL[] {jar.toUri().toURL()}, ScienceWorldJar.class.getClassLoader());
            l.loadClass(ENTRY);
            return l;
        } catch (ClassNotFoundException e) {
            throw new ConfigException(
                    "config key 'task.options.jar': " + jar + " has no " + ENTRY + ": not a ScienceWorld jar");
        } catch (IOException e) {
            throw new ConfigException("config key 'task.options.jar': cannot read " + jar + ": " + e.getMessage());
        }
    }

    /** A fresh simulator from the jar's class loader. */
    static ScienceWorldJar open(URLClassLoader loader) {
        try {
            Object env = loader.loadClass(ENTRY).getConstructor().newInstance();
            return new ScienceWorldJar(env);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start ScienceWorld's " + ENTRY + ": " + cause(e), e);
        }
    }

    public List<String> taskNames() {
        return strings(call("getTaskNames"));
    }

    public int maxVariations(String task) {
        return ((Number) call("getTaskMaxVariations", task)).intValue();
    }

    /** The variations of a task's split: {@code train}, {@code dev} or {@code test}, after {@link #load}. */
    public List<Integer> variations(String split) {
        String m = switch (split) {
            case "train" -> "getVariationsTrain";
            case "dev" -> "getVariationsDev";
            case "test" -> "getVariationsTest";
            default -> throw new IllegalArgumentException("split train, dev or test, got " + split);
        };
        List<Integer> out = new ArrayList<>();
        for (Object o : (Iterable<?>) call(m)) {
            out.add(((Number) o).intValue());
        }
        return out;
    }

    public void load(String task, int variation, String simplifications) {
        call("load", task, variation, simplifications, false);
    }

    /** Runs an action; returns the observation. */
    public String step(String action) {
        return String.valueOf(call("step", action));
    }

    /** The task score, 0 to 1 (the Python package shows it times 100). */
    public double score() {
        return ((Number) call("getScore")).doubleValue();
    }

    public boolean completed() {
        return (Boolean) call("getCompleted");
    }

    public int moves() {
        return ((Number) call("getNumMoves")).intValue();
    }

    public List<String> validActions() {
        return strings(call("getValidActionObjectCombinations"));
    }

    public String taskDescription() {
        return String.valueOf(call("getTaskDescription"));
    }

    public String look() {
        return String.valueOf(call("freeActionLook"));
    }

    public String inventory() {
        return String.valueOf(call("freeActionInventory"));
    }

    private Object call(String name, Object... args) {
        Method m = find(name, args.length);
        try {
            return m.invoke(env, args);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("ScienceWorld's " + name + " failed: " + cause(e.getCause()), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call ScienceWorld's " + name, e);
        }
    }

    private Method find(String name, int params) {
        for (Method m : env.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == params) {
                return m;
            }
        }
        throw new IllegalStateException("this ScienceWorld jar has no " + name + " with " + params + " arguments");
    }

    private static List<String> strings(Object o) {
        List<String> out = new ArrayList<>();
        for (Object x : (Iterable<?>) o) {
            out.add(String.valueOf(x));
        }
        return out;
    }

    private static String cause(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
