package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
        List<EnumSet<F>> sets = subsets(flaws);
        int count = sets.size() - 1;
        List<ToolProgram<B>> out = new ArrayList<>();
        for (EnumSet<F> set : sets.subList(1, sets.size())) {
            ToolProgram<B> p = program.apply(set);
            if (p.correct()) {
                throw new IllegalStateException(p.name() + " is marked correct but has wrong places " + set);
            }
            out.add(new ToolProgram<>(p.name(), p.source(), false, 1.0 / count, p.output()));
        }
        return List.copyOf(out);
    }

    /**
     * Each of {@code flaws}' places as text ({@link ProgramPlace}): where the program wrong only there differs from
     * the correct one, widened by the shortest context (split between before and after) with which every combination
     * of wrong places is classified right at this place. {@code program} must give the correct program for the empty
     * set.
     *
     * @throws IllegalStateException when some place cannot be told apart in every combination
     */
    public static <F extends Enum<F>, B> List<ProgramPlace> places(
            Class<F> flaws, Function<Set<F>, ToolProgram<B>> program) {
        List<EnumSet<F>> sets = subsets(flaws);
        List<String> sources = sets.stream().map(s -> program.apply(s).source()).toList();
        String correct = sources.get(0);
        List<ProgramPlace> out = new ArrayList<>();
        for (F f : flaws.getEnumConstants()) {
            String flawed = sources.get(1 << f.ordinal());
            int prefix = 0;
            while (prefix < Math.min(correct.length(), flawed.length())
                    && correct.charAt(prefix) == flawed.charAt(prefix)) {
                prefix++;
            }
            int suffix = 0;
            while (suffix < Math.min(correct.length(), flawed.length()) - prefix
                    && correct.charAt(correct.length() - 1 - suffix) == flawed.charAt(flawed.length() - 1 - suffix)) {
                suffix++;
            }
            ProgramPlace place = null;
            String name = f.name().toLowerCase(Locale.ROOT).replace('_', '-');
            // the shortest total context first; the common prefix and suffix bound it on each side
            for (int total = 1; place == null && total <= prefix + suffix; total++) {
                for (int before = Math.min(total, prefix); before >= 0 && total - before <= suffix; before--) {
                    int after = total - before;
                    ProgramPlace p = new ProgramPlace(
                            name,
                            correct.substring(prefix - before, correct.length() - suffix + after),
                            flawed.substring(prefix - before, flawed.length() - suffix + after));
                    if (classifiesEvery(p, f, sets, sources)) {
                        place = p;
                        break;
                    }
                }
            }
            if (place == null) {
                throw new IllegalStateException("the place " + name + " cannot be told apart in every combination");
            }
            out.add(place);
        }
        return List.copyOf(out);
    }

    /** Every subset of {@code flaws}' constants, the i-th holding the constants whose ordinal's bit is set in i. */
    private static <F extends Enum<F>> List<EnumSet<F>> subsets(Class<F> flaws) {
        F[] all = flaws.getEnumConstants();
        List<EnumSet<F>> out = new ArrayList<>();
        for (int mask = 0; mask < 1 << all.length; mask++) {
            EnumSet<F> set = EnumSet.noneOf(flaws);
            for (F f : all) {
                if ((mask & (1 << f.ordinal())) != 0) {
                    set.add(f);
                }
            }
            out.add(set);
        }
        return out;
    }

    private static <F extends Enum<F>> boolean classifiesEvery(
            ProgramPlace p, F flaw, List<EnumSet<F>> sets, List<String> sources) {
        for (int i = 0; i < sets.size(); i++) {
            if (!p.wrongIn(sources.get(i)).equals(Optional.of(sets.get(i).contains(flaw)))) {
                return false;
            }
        }
        return true;
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
