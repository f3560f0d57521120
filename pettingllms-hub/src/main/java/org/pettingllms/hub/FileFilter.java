package org.pettingllms.hub;

import java.util.List;
import java.util.function.Predicate;

/**
 * Which files of a repo to fetch, as huggingface_hub's {@code allow_patterns} and {@code ignore_patterns}: a file
 * is taken when it matches one include pattern (or there are none) and no exclude pattern ({@link Glob#fnmatch}).
 * Exact paths are patterns without wildcards.
 */
public record FileFilter(List<String> include, List<String> exclude) {
    public static final FileFilter ALL = new FileFilter(List.of(), List.of());

    public FileFilter {
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
    }

    public static FileFilter only(String path) {
        return new FileFilter(List.of(path), List.of());
    }

    public boolean matches(String path) {
        return (include.isEmpty() || any(include, path)) && !any(exclude, path);
    }

    private static boolean any(List<String> patterns, String path) {
        for (String p : patterns) {
            Predicate<String> m = Glob.fnmatch(p);
            if (m.test(path)) {
                return true;
            }
        }
        return false;
    }

    /** {@code --include '*.json' --exclude '*.bin'}, for messages. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        include.forEach(p ->
                s.append(s.isEmpty() ? "" : " ").append("--include '").append(p).append('\''));
        exclude.forEach(p ->
                s.append(s.isEmpty() ? "" : " ").append("--exclude '").append(p).append('\''));
        return s.isEmpty() ? "all files" : s.toString();
    }
}
