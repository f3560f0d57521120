package org.pettingllms.envs.search;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Short-answer scoring as the open-domain QA evaluations do it (SQuAD's {@code normalize_answer}, which Search-R1's
 * exact match and HotpotQA's evaluation both use): lower case, ASCII punctuation removed, the articles a, an and the
 * removed, white space made single. Exact match: the normalised answer equals a normalised gold answer. Word F1 (the
 * reward R1-Searcher uses and HotpotQA reports): over the normalised words, the best over the gold answers; a yes,
 * no or "noanswer" that is not the gold one scores 0, as in HotpotQA's evaluation.
 */
public final class AnswerMatch {
    private static final Pattern ARTICLES = Pattern.compile("\\b(a|an|the)\\b");
    private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"; // Python's string.punctuation
    private static final List<String> SPECIAL = List.of("yes", "no", "noanswer");

    private AnswerMatch() {}

    public static String normalize(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toLowerCase(Locale.ROOT).toCharArray()) {
            if (PUNCTUATION.indexOf(c) < 0) {
                sb.append(c);
            }
        }
        String noArticles = ARTICLES.matcher(sb).replaceAll(" ");
        return String.join(" ", noArticles.trim().split("\\s+"));
    }

    /** Whether {@code answer} matches one of {@code golds} exactly after normalising. */
    public static boolean exact(String answer, List<String> golds) {
        String a = normalize(answer);
        return golds.stream().anyMatch(g -> normalize(g).equals(a));
    }

    /** The best word F1 of {@code answer} against {@code golds}. */
    public static double f1(String answer, List<String> golds) {
        double best = 0;
        for (String g : golds) {
            best = Math.max(best, f1(answer, g));
        }
        return best;
    }

    static double f1(String answer, String gold) {
        String a = normalize(answer);
        String g = normalize(gold);
        if ((SPECIAL.contains(a) || SPECIAL.contains(g)) && !a.equals(g)) {
            return 0;
        }
        List<String> pa = words(a);
        List<String> ga = words(g);
        Map<String, Integer> counts = new HashMap<>();
        for (String w : ga) {
            counts.merge(w, 1, Integer::sum);
        }
        int common = 0;
        for (String w : pa) {
            Integer c = counts.get(w);
            if (c != null && c > 0) {
                common++;
                counts.put(w, c - 1);
            }
        }
        if (common == 0) {
            return 0;
        }
        double precision = (double) common / pa.size();
        double recall = (double) common / ga.size();
        return 2 * precision * recall / (precision + recall);
    }

    private static List<String> words(String normalized) {
        return normalized.isEmpty() ? List.of() : Arrays.asList(normalized.split(" "));
    }
}
