package org.pettingllms.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of every module depend on each other without cycles, read from the main sources' package and import
 * lines. (Modules cannot form cycles: Maven refuses them; packages inside a module can.)
 */
class PackageCyclesTest {
    private static final Path PROJECT = Path.of("..");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package (org\\.pettingllms[\\w.]*);");
    private static final Pattern IMPORT =
            Pattern.compile("(?m)^import (?:static )?(org\\.pettingllms[\\w.]*)\\.[\\w*]+;");

    @Test
    void noModuleHasAPackageCycle() throws IOException {
        List<Path> modules;
        try (Stream<Path> dirs = Files.list(PROJECT)) {
            modules = dirs.filter(d -> d.getFileName().toString().startsWith("pettingllms-")
                            && Files.isDirectory(d.resolve("src/main/java")))
                    .sorted()
                    .toList();
        }
        assertThat(modules)
                .extracting(m -> m.getFileName().toString())
                .contains("pettingllms-core", "pettingllms-envs", "pettingllms-torch", "pettingllms-cli");
        for (Path module : modules) {
            Map<String, Set<String>> uses = packageGraph(module.resolve("src/main/java"));
            assertThat(uses).as("packages of %s", module.getFileName()).isNotEmpty();
            for (String start : uses.keySet()) {
                assertThat(cycleFrom(start, start, uses, new ArrayList<>(List.of(start)), new TreeSet<>()))
                        .as("a dependency cycle in %s through %s (all: %s)", module.getFileName(), start, uses)
                        .isEmpty();
            }
        }
    }

    @Test
    void theCheckSeesACycle() {
        Map<String, Set<String>> uses = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertThat(cycleFrom("a", "a", uses, new ArrayList<>(List.of("a")), new TreeSet<>()))
                .containsExactly("a", "b", "c", "a");
        assertThat(cycleFrom("d", "d", uses, new ArrayList<>(List.of("d")), new TreeSet<>()))
                .isEmpty();
    }

    @Test
    void corePackagesAreAllSeen() throws IOException {
        assertThat(packageGraph(Path.of("src/main/java")))
                .containsKeys(
                        "org.pettingllms.core.backend",
                        "org.pettingllms.core.config",
                        "org.pettingllms.core.data",
                        "org.pettingllms.core.rollout",
                        "org.pettingllms.core.task",
                        "org.pettingllms.core.train");
    }

    /** Each package of a source tree and the packages of the same tree it imports from. */
    private static Map<String, Set<String>> packageGraph(Path sources) throws IOException {
        Map<String, String> texts = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                texts.put(f.toString(), Files.readString(f));
            }
        }
        Map<String, Set<String>> uses = new TreeMap<>();
        Map<String, String> packageOf = new TreeMap<>();
        for (var e : texts.entrySet()) {
            Matcher m = PACKAGE.matcher(e.getValue());
            if (m.find()) {
                packageOf.put(e.getKey(), m.group(1));
                uses.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            }
        }
        for (var e : packageOf.entrySet()) {
            Matcher m = IMPORT.matcher(texts.get(e.getKey()));
            while (m.find()) {
                String used = knownPrefix(m.group(1), uses.keySet());
                if (used != null && !used.equals(e.getValue())) {
                    uses.get(e.getValue()).add(used);
                }
            }
        }
        return uses;
    }

    /** The longest package of the tree that a name starts with (an import may name a nested class). */
    private static String knownPrefix(String name, Set<String> packages) {
        for (String n = name; !n.isEmpty(); n = n.contains(".") ? n.substring(0, n.lastIndexOf('.')) : "") {
            if (packages.contains(n)) {
                return n;
            }
        }
        return null;
    }

    private static List<String> cycleFrom(
            String start, String at, Map<String, Set<String>> uses, List<String> path, Set<String> seen) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(start);
                return cycle;
            }
            if (seen.add(next)) {
                path.add(next);
                List<String> c = cycleFrom(start, next, uses, path, seen);
                if (!c.isEmpty()) {
                    return c;
                }
                path.remove(path.size() - 1);
            }
        }
        return List.of();
    }
}
