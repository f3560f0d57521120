package org.pettingllms.envs.designed;

import java.util.SplittableRandom;
import org.pettingllms.envs.data.ContentSplit;

/**
 * The {@code letters} kind of {@code design-mix}: the n-th letter of a made-up word ({@code What is the 4th letter
 * of "kamiro"?}), words of two or three consonant-vowel syllables (short enough for the project's tiny models to
 * copy: they lose a made-up word of eight letters after four). A one-shot answer miscounts by a place; a program that indexes the
 * word is off by one unless it counts from zero. Split by seed and by the question's content ({@link ContentSplit}).
 */
public final class LetterProblems {
    /** A problem: its question, the word, the position (1-based) and the answer letter. */
    public record Letter(String question, String word, int position, String answer) {}

    private static final String CONSONANTS = "bdfgklmnprstvz";
    private static final String VOWELS = "aeiou";

    private LetterProblems() {}

    /** The problem of a seed. */
    public static Letter of(long seed) {
        return ContentSplit.row(seed, (s, id) -> draw(s), Letter::question);
    }

    private static Letter draw(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        StringBuilder w = new StringBuilder();
        int syllables = 2 + rng.nextInt(2);
        for (int i = 0; i < syllables; i++) {
            w.append(CONSONANTS.charAt(rng.nextInt(CONSONANTS.length())))
                    .append(VOWELS.charAt(rng.nextInt(VOWELS.length())));
        }
        String word = w.toString();
        // 2nd to the last but one: a program's off-by-one index (w[n]) still names a letter of the word
        int position = 2 + rng.nextInt(word.length() - 2);
        return new Letter(
                "What is the " + ordinal(position) + " letter of \"" + word + "\"?",
                word,
                position,
                String.valueOf(word.charAt(position - 1)));
    }

    static String ordinal(int n) {
        String suffix = n % 100 >= 11 && n % 100 <= 13
                ? "th"
                : switch (n % 10) {
                    case 1 -> "st";
                    case 2 -> "nd";
                    case 3 -> "rd";
                    default -> "th";
                };
        return n + suffix;
    }
}
