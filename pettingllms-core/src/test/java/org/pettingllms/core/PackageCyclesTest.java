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

/** The core's packages depend on each other without cycles (read from the sources' imports). */
class PackageCyclesTest {
    private static final Path ROOT = Path.of("src/main/java/org/pettingllms/core");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?org\\.pettingllms\\.core\\.([a-z]+)\\.");

    @Test
    void corePackagesFormNoCycle() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = ROOT.relativize(f.getParent()).toString().split("[/\\\\]")[0];
                Matcher m = IMPORT.matcher(Files.readString(f));
                Set<String> to = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        to.add(m.group(1));
                    }
                }
            }
        }
        assertThat(uses).containsKeys("backend", "config", "data", "rollout", "task", "train");
        for (String start : uses.keySet()) {
            assertThat(cycleFrom(start, start, uses, new ArrayList<>(List.of(start)), new TreeSet<>()))
                    .as("a dependency cycle through %s (all: %s)", start, uses).isEmpty();
        }
    }

    private static List<String> cycleFrom(String start, String at, Map<String, Set<String>> uses, List<String> path,
                                          Set<String> seen) {
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
