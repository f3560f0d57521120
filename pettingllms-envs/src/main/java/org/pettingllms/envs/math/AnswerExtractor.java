package org.pettingllms.envs.math;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the final answer in a model's text, in the order models state it (docs/ENVIRONMENTS.md, math): the last
 * {@code \boxed{}} / {@code \fbox{}} (several boxes written together are one list), a "final answer is ..."
 * phrase, a GSM8K {@code #### n} line, the last display or inline math, and only then a number that stands as a
 * number (not inside a word such as "XQ7B" and not inside a LaTeX group such as the 2 of
 * {@code \frac{1+\sqrt{3}}{2}}). Chat-template tokens and what a reasoning block says before its end are ignored.
 */
public final class AnswerExtractor {
    /** How the answer was found, for {@code check-answer}'s explanation. */
    public enum Method {
        BOXED("the last \\boxed{}"),
        /** A value stated after the last box ("... \\boxed{255} ... The final answer is $10,455$."). */
        PHRASE_AFTER_BOX("a 'final answer is' phrase after the last \\boxed{}"),
        BOXED_LIST("several \\boxed{} written together"),
        ANSWER_PHRASE("a 'final answer is' phrase"),
        HASHES("a '####' line"),
        CONCLUSION("the one number of a concluding sentence ('Therefore, ...') after the last math"),
        MATH("the last display or inline math"),
        BARE("the whole text, short and without words: a bare answer"),
        NUMBER("the last number standing alone");

        private final String description;

        Method(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    /** An extracted answer and the rule that found it. */
    public record Extraction(String answer, Method method) {}

    private static final Pattern CHAT_TOKENS =
            Pattern.compile("<\\|[A-Za-z0-9_]{1,40}\\|>|</?s>|<eos>|<(?:start|end)_of_turn>");
    /** The end of the model's turn: what follows is not its answer. */
    private static final Pattern END_OF_TURN =
            Pattern.compile("<\\|(?:im_end|eot_id|endoftext|end)\\|>|</s>|<eos>|<end_of_turn>");
    /** A note after the answer: "64 (note: I checked ...)", "64 -- since ...". */
    private static final Pattern TRAILING_NOTE = Pattern.compile(
            "(?i)\\s+(?:\\((?:note|i\\.e\\.|since|because|which|as|this|from)\\b|--|—).*$", Pattern.DOTALL);

    private static final Pattern ANSWER_PHRASE = Pattern.compile(
            "(?i)(?:final\\s+answer|the\\s+answer|answer)\\s*(?:is\\s*[:：]?|[:：]|=)\\s*(?:\\\\boxed\\s*)?");
    private static final Pattern HASHES = Pattern.compile("(?m)^\\s*####\\s*(.+)$");
    /**
     * Display math first so that {@code $$} is not read as two empty inline spans; inline math ({@code $},
     * {@code \\(}) stays on one line, as the reference checkers read it, may hold an escaped {@code \\$}, and does not
     * close right before a digit ("paid $5 and got $7 back" holds no math).
     */
    private static final Pattern MATH = Pattern.compile(
            "\\$\\$(.+?)\\$\\$|\\\\\\[(.+?)\\\\\\]|\\\\\\(([^\\n]+?)\\\\\\)"
                    + "|(?<!\\\\)\\$((?:\\\\\\$|[^$\\n])+?)(?<!\\\\)\\$(?!\\d)",
            Pattern.DOTALL);
    /**
     * A number with no letter, digit, brace, backslash, caret or underscore touching it; a decimal comma
     * ({@code 2,74}, {@code 0,125}; not in a list such as {@code 1,2,3}) is one number.
     */
    private static final Pattern NUMBER =
            Pattern.compile("(?<![\\w.\\\\{^_])-?(?:(?<![\\d,])" + LatexAnswers.DECIMAL_COMMA_NUMBER
                    + "(?!\\d|,\\d)|(?:\\d{1,3}(?:,\\d{3})+|\\d{1,3}(?: \\d{3})+(?!\\d)|\\d+)(?:\\.\\d+)?|\\.\\d+)"
                    + "(?:/\\d+)?(?:\\s?\\\\?%)?"
                    // a short unit may touch it (1,000.99m², 5cm); a longer word may not (7Bit)
                    + "(?:(?=(?!(?:st|nd|rd|th)(?![a-zA-Z]))[a-zA-Z]{1,3}[²³]?(?![a-zA-Z\\d]))|(?![\\w}^_]|\\.\\d))");
    /**
     * An inline span that crosses a line ({@code $ \n 9 \n $}): not math (see {@link #MATH}), and the numbers in it
     * are inside math delimiters, not standing alone, so they are no answer either (the reference checkers' reading).
     */
    private static final Pattern BROKEN_INLINE = Pattern.compile(
            "(?<![\\\\$])\\$(?!\\$)[^$]*\\n[^$]*(?<!\\\\)\\$|\\\\\\((?:(?!\\\\\\)).)*?\\n.*?\\\\\\)", Pattern.DOTALL);
    /** A number {@link #NUMBER} found with a decimal comma, which stays in it for the checker to read. */
    private static final Pattern DECIMAL_COMMA = Pattern.compile("-?" + LatexAnswers.DECIMAL_COMMA_NUMBER);
    /** A LaTeX command, set aside when a text is asked whether it holds words or variables. */
    private static final Pattern COMMAND = Pattern.compile("\\\\[a-zA-Z]+");

    private static final Pattern WORD = Pattern.compile("[a-zA-Z]{3,}");
    private static final Pattern LETTER = Pattern.compile("[a-zA-Z]");
    /** A sentence that states a result: "Therefore, there are 12 ways." */
    private static final Pattern CONCLUDING = Pattern.compile(
            "(?i)(?:^\\s*|(?<=[.!?:])\\s+|\\n\\s*)(?:therefore|thus|hence|so|in conclusion|in total|in summary|altogether)\\b");

    /** Longer than this, or with a word of three letters or more outside LaTeX commands, a text is no bare answer. */
    private static final int MAX_BARE = 80;

    /** What may stand between boxes that belong to one answer: delimiters, punctuation, "and", "or". */
    private static final Pattern BOX_JOINER = Pattern.compile(
            "(?i)(?:\\s|\\$|\\\\[()\\[\\]]|[,;&]|\\band\\b|\\bor\\b|\\\\quad|\\\\qquad|\\\\text\\{\\s*(?:and|or)\\s*\\}"
                    + "|\\b[a-zA-Z](?:_\\{?\\w+\\}?)?\\s*=)*");

    private static final Pattern BOX = Pattern.compile("\\\\(?:boxed|fbox)\\s*\\{");
    private static final Pattern SENTENCE_END = Pattern.compile("\\.(?=\\s|$)|\\n|(?i)\\s+I hope\\b");

    /** Longer than this after an answer phrase is prose ("the answer is not obvious because ..."). */
    private static final int MAX_PHRASE = 120;

    private AnswerExtractor() {}

    public static Optional<String> extract(String text) {
        return find(text).map(Extraction::answer);
    }

    /** The final answer of {@code text} with the rule that found it; empty when the text states none. */
    public static Optional<Extraction> find(String text) {
        return found(text).map(e -> new Extraction(lastOfChain(e.answer()), e.method()));
    }

    /** Relations whose last side is the answer: {@code =} in a chain, and {@code \approx} wherever it stands. */
    private static final Pattern CHAIN = Pattern.compile("=|\\\\approx(?![a-zA-Z])");

    /**
     * The last side of a chain ({@code x = 5+5+1 = 7 = 11} is 11); an approximation only where nothing exact comes
     * before it ({@code \approx 2.72} and {@code x \approx 3.14} are the decimals, {@code x = 1/3 \approx 0.33} is
     * {@code x = 1/3}, {@code 9\pi \approx 28.27} is {@code 9\pi}); an equation with one {@code =} stays whole
     * ({@code y = 2x + 1}), for the checker compares it as an equation.
     */
    static String lastOfChain(String answer) {
        if (LatexAnswers.splitTopLevel(answer, ",").size() > 1) {
            return answer; // a list (x = 1, x = 2): its items are the answer
        }
        List<int[]> seps = separators(answer);
        int approx = -1;
        for (int i = 0; i < seps.size() && approx < 0; i++) {
            if (answer.charAt(seps.get(i)[0]) == '\\') {
                approx = i;
            }
        }
        if (approx >= 0) {
            String before = answer.substring(approx == 0 ? 0 : seps.get(approx - 1)[1], seps.get(approx)[0])
                    .strip();
            String after = answer.substring(seps.get(approx)[1]).strip();
            boolean first = approx == 0;
            if (first
                    && (before.isEmpty()
                            || MathNames.ANSWER_NAME.matcher(before).matches())
                    && !after.isEmpty()) {
                return lastOfChain(after); // \approx 2.72, x \approx 3.14: the approximation is all there is
            }
            // 9\pi \approx 28.27, x = 1/3 \approx 0.33: the exact side before the approximation
            return before.isEmpty() ? answer : before; // the side right before it: the chain's last exact one
        }
        if (seps.size() < 2) {
            return answer;
        }
        String last = answer.substring(seps.get(seps.size() - 1)[1]).strip();
        return last.isEmpty() ? answer : last;
    }

    /** The top-level {@code =} and {@code \approx} of {@code s} as {start, end}. */
    private static List<int[]> separators(String s) {
        int[] depth = org.pettingllms.core.util.Brackets.ALL.depths(s);
        List<int[]> seps = new ArrayList<>();
        Matcher m = CHAIN.matcher(s);
        while (m.find()) {
            if (depth[m.start()] == 0 && !inRelation(s, m.start())) {
                seps.add(new int[] {m.start(), m.end()});
            }
        }
        return seps;
    }

    /** Whether the {@code =} at {@code i} is part of a relation symbol ({@code <=}, {@code \ne} is no {@code =}). */
    private static boolean inRelation(String s, int i) {
        char before = i > 0 ? s.charAt(i - 1) : ' ';
        char after = i + 1 < s.length() ? s.charAt(i + 1) : ' ';
        return s.charAt(i) == '=' && (before == '<' || before == '>' || before == '!' || after == '=');
    }

    private static Optional<Extraction> found(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        String t = relevantPart(text);
        List<int[]> boxes = boxes(t);
        Optional<Extraction> boxed = boxedAnswer(t, boxes);
        MatchResult lastPhrase = last(ANSWER_PHRASE, t);
        Optional<String> phrase = lastPhrase == null ? Optional.empty() : answerPhrase(t, lastPhrase);
        if (boxed.isPresent()) {
            boolean after = phrase.isPresent()
                    && lastPhrase.start() > boxes.get(boxes.size() - 1)[3]
                    && !hasWord(phrase.get()); // a value, not "The answer is correct because ..."
            return after ? phrase.map(a -> new Extraction(a, Method.PHRASE_AFTER_BOX)) : boxed;
        }
        if (phrase.isPresent()) {
            return phrase.map(a -> new Extraction(a, Method.ANSWER_PHRASE));
        }
        String hashes = lastGroup(HASHES.matcher(t));
        if (hashes != null) {
            return Optional.of(new Extraction(hashes.strip(), Method.HASHES));
        }
        Optional<String> concluded = conclusion(t);
        if (concluded.isPresent()) {
            return concluded.map(a -> new Extraction(a, Method.CONCLUSION));
        }
        Optional<String> math = lastMath(t);
        if (math.isPresent()) {
            return math.map(a -> new Extraction(a, Method.MATH));
        }
        String bare = t.strip();
        if (!bare.isEmpty() && bare.length() <= MAX_BARE && !hasWord(bare)) {
            return Optional.of(new Extraction(bare, Method.BARE)); // \frac{10}{9}, -10/9, .4: the text is the answer
        }
        List<String> numbers = standingNumbers(t);
        return numbers.isEmpty()
                ? Optional.empty()
                : Optional.of(new Extraction(numbers.get(numbers.size() - 1), Method.NUMBER));
    }

    /** Whether {@code s} has a word of three letters or more outside LaTeX commands: prose, not a value. */
    private static boolean hasWord(String s) {
        return WORD.matcher(COMMAND.matcher(s).replaceAll(" ")).find();
    }

    /**
     * The numbers standing alone in {@code s}, in order, thousands separators removed; a decimal comma kept
     * ("Soucis : 2,74 $" is 2,74, which the checker reads as 2.74 against a single number).
     */
    private static List<String> standingNumbers(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = NUMBER.matcher(BROKEN_INLINE.matcher(s).replaceAll(" "));
        while (m.find()) {
            String n = m.group();
            out.add(DECIMAL_COMMA.matcher(n).matches() ? n : n.replace(",", "").replace(" ", ""));
        }
        return out;
    }

    /**
     * The one number of the last concluding sentence ("Therefore, there are 12 distinct sequences.") after the
     * last math span, where the text ends in prose rather than in math; a sentence with two numbers says nothing.
     */
    private static Optional<String> conclusion(String text) {
        MatchResult math = last(MATH, text);
        String tail = math == null ? text : text.substring(math.end());
        MatchResult c = last(CONCLUDING, tail);
        if (c == null) {
            return Optional.empty();
        }
        String rest = tail.substring(c.end());
        Matcher end = SENTENCE_END.matcher(rest);
        List<String> numbers = standingNumbers(end.find() ? rest.substring(0, end.start()) : rest);
        return numbers.size() == 1 ? Optional.of(numbers.get(0)) : Optional.empty();
    }

    /** The last match of {@code p} in {@code text}, or null. */
    private static MatchResult last(Pattern p, String text) {
        Matcher m = p.matcher(text);
        MatchResult last = null;
        while (m.find()) {
            last = m.toMatchResult();
        }
        return last;
    }

    /** Without chat-template tokens; after a closed reasoning block when something follows it. */
    private static String relevantPart(String text) {
        Matcher end = END_OF_TURN.matcher(text);
        String t = end.find() && !text.substring(0, end.start()).isBlank() ? text.substring(0, end.start()) : text;
        t = CHAT_TOKENS.matcher(t).replaceAll(" ");
        int thought = t.lastIndexOf("</think>");
        if (thought >= 0 && !t.substring(thought + 8).isBlank()) {
            t = t.substring(thought + 8);
        }
        return t;
    }

    /** The content of the last {@code \boxed{...}} or {@code \fbox{...}}, braces balanced. */
    public static Optional<String> lastBoxed(String text) {
        List<int[]> boxes = boxes(text);
        if (boxes.isEmpty()) {
            return Optional.empty();
        }
        int[] last = boxes.get(boxes.size() - 1);
        return Optional.of(text.substring(last[1], last[2]).strip());
    }

    /** The last box, joined with the boxes before it when only punctuation, "and" or math delimiters separate them. */
    private static Optional<Extraction> boxedAnswer(String text, List<int[]> boxes) {
        if (boxes.isEmpty()) {
            return Optional.empty();
        }
        int first = boxes.size() - 1;
        while (first > 0
                && BOX_JOINER
                        .matcher(text.substring(boxes.get(first - 1)[3], boxes.get(first)[0]))
                        .matches()) {
            first--;
        }
        List<String> parts = new ArrayList<>();
        for (int i = first; i < boxes.size(); i++) {
            parts.add(text.substring(boxes.get(i)[1], boxes.get(i)[2]).strip());
        }
        return Optional.of(
                new Extraction(String.join(", ", parts), parts.size() > 1 ? Method.BOXED_LIST : Method.BOXED));
    }

    /** Every closed box as {command start, content start, content end, after the closing brace}, in order. */
    private static List<int[]> boxes(String text) {
        List<int[]> out = new ArrayList<>();
        Matcher m = BOX.matcher(text);
        int from = 0;
        while (m.find(from)) {
            int open = m.end() - 1;
            int close = LatexAnswers.matching(text, open);
            if (close < 0) {
                from = m.end();
                continue;
            }
            out.add(new int[] {m.start(), open + 1, close, close + 1});
            from = close + 1;
        }
        return out;
    }

    /**
     * The answer after the last "final answer is" / "Answer:" phrase: its first math span when it starts with
     * one, else the rest of the sentence ("The final answer is $\frac37$. I hope it is correct." -> {@code \frac37}).
     */
    private static Optional<String> answerPhrase(String text, MatchResult phrase) {
        String rest = text.substring(phrase.end()).replaceFirst("^[*_\\s]+", ""); // "**Answer:** 5"
        Matcher math = MATH.matcher(rest);
        if (math.lookingAt()) {
            return nonBlank(mathContent(math));
        }
        if (rest.startsWith("{")) { // "\boxed" was consumed by the phrase but its box was not closed
            return Optional.empty();
        }
        Matcher end = SENTENCE_END.matcher(rest);
        String sentence = (end.find() ? rest.substring(0, end.start()) : rest).strip();
        sentence = TRAILING_NOTE
                .matcher(sentence)
                .replaceFirst("")
                .replaceAll("[*_]+$", "")
                .strip();
        sentence = afterCopula(sentence);
        if (hasWord(sentence) && !MATH.matcher(sentence).find()) {
            List<String> numbers = standingNumbers(sentence); // "Jane started growing Sphere 3 hours ago": 3
            if (numbers.size() == 1) {
                return Optional.of(numbers.get(0));
            }
        }
        return sentence.length() > MAX_PHRASE ? Optional.empty() : nonBlank(sentence); // prose, not an answer
    }

    /** A verb that states a value: "The largest $n$ is 34." */
    private static final Pattern COPULA = Pattern.compile("(?i)\\s(?:is|are|was|were|equals|be)\\s+");

    /**
     * What a sentence that starts with words says its subject is ("The largest $n$ is 34" -> 34, "the number of
     * ways is $\frac{1}{2}$" -> {@code \frac{1}{2}}); the sentence itself otherwise.
     */
    private static String afterCopula(String sentence) {
        if (!sentence.matches("(?s)\\p{L}{2,}\\b.*")) {
            return sentence;
        }
        Matcher m = COPULA.matcher(sentence);
        int at = -1;
        while (m.find()) {
            at = m.end();
        }
        if (at < 0) {
            return sentence;
        }
        String tail = sentence.substring(at).strip();
        Matcher math = MATH.matcher(tail);
        if (math.matches()) {
            tail = mathContent(math).strip();
        }
        return tail.isEmpty() ? sentence : tail;
    }

    /**
     * The last math span's content; an arithmetic line's result ({@code $3 + 4 = 7$} -> 7) when the left side
     * and the result have no variable.
     */
    private static Optional<String> lastMath(String text) {
        Matcher m = MATH.matcher(text);
        String last = null;
        while (m.find()) {
            String c = mathContent(m);
            if (!c.isBlank()) {
                last = c.strip();
            }
        }
        if (last == null) {
            return Optional.empty();
        }
        List<String> sides = LatexAnswers.splitTopLevel(last, "=");
        if (sides.size() > 1
                && !sides.get(sides.size() - 1).isBlank()
                && !hasVariable(sides.get(0))
                && !hasVariable(sides.get(sides.size() - 1))) { // 7 = 11a + c is an equation, not a result
            return Optional.of(sides.get(sides.size() - 1));
        }
        return Optional.of(last);
    }

    private static boolean hasVariable(String s) {
        return LETTER.matcher(COMMAND.matcher(s).replaceAll("")).find();
    }

    private static String mathContent(Matcher m) {
        for (int g = 1; g <= m.groupCount(); g++) {
            if (m.group(g) != null) {
                return m.group(g);
            }
        }
        return "";
    }

    private static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.strip());
    }

    private static String lastGroup(Matcher m) {
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        return last == null || last.isBlank() ? null : last;
    }
}
