package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A discovery warm-up's programs ({@link Game#flawedPrograms()}): a solver program with several places it can be
 * wrong at, one program per non-empty set of wrong places, in equal shares. Wrong places combine freely, so each place
 * is right in half the programs whatever the others are, except that all are never right together: the correct
 * program is the one combination no program shows. With one wrong place per program a model that imitates exactly
 * knows, after the other places came out right, that the last must be wrong, and never writes the correct program
 * (docs/learning-diagnosis.md, section 6).
 */
public final class FlawCombinations {
    private FlawCombinations() {}

    /**
     * Every non-empty set of {@code flaws}' constants, as {@code program} writes it (its weight replaced by the equal
     * share). {@code program} must give a different source for every set and mark none correct.
     */
    public static <F extends Enum<F>, B> List<ToolProgram<B>> of(
            Class<F> flaws, Function<Set<F>, ToolProgram<B>> program) {
        F[] all = flaws.getEnumConstants();
        int count = (1 << all.length) - 1;
        List<ToolProgram<B>> out = new ArrayList<>();
        for (int mask = 1; mask <= count; mask++) {
            EnumSet<F> set = EnumSet.noneOf(flaws);
            for (F f : all) {
                if ((mask & (1 << f.ordinal())) != 0) {
                    set.add(f);
                }
            }
            ToolProgram<B> p = program.apply(set);
            if (p.correct()) {
                throw new IllegalStateException(p.name() + " is marked correct but has wrong places " + set);
            }
            out.add(new ToolProgram<>(p.name(), p.source(), false, 1.0 / count, p.output()));
        }
        return List.copyOf(out);
    }

    /** {@code base} followed by the wrong places in lower case, e.g. {@code bfs-cut-short+swapped-ud}. */
    public static <F extends Enum<F>> String name(String base, Set<F> flaws) {
        return flaws.isEmpty()
                ? base
                : base + "-"
                        + flaws.stream()
                                .map(f -> f.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                                .collect(Collectors.joining("+"));
    }

    /** {@code path} without its last move: a search that stops one move short. */
    public static String oneShort(String path) {
        return path.isEmpty() ? path : path.substring(0, path.length() - 1);
    }
}
