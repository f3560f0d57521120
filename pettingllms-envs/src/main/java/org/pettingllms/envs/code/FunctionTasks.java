package org.pettingllms.envs.code;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.data.ContentSplit;

/**
 * Generated function tasks: the CPU-scale problem source of {@code code-v1} ({@code task.options.generator:
 * functions}; ENVIRONMENTS.md, code). Each task asks for {@code f(xs)}, a fold over a list of small whole numbers:
 * an aggregate (the sum, the count, the largest, the sum of the squares) of the numbers that pass one or two
 * filters ("at least 7", "odd", "not multiples of 3", "other than 4"). The wording decides the program: "at least
 * 7" is {@code x>=7}, "over 7" is {@code x>7}. Every task has at least one hard wording.
 *
 * <p>The hard wordings have a natural misreading ({@link #line}, {@link #condition}); the warm-up demonstrations
 * misread each of them more often than not ({@link #READ_RIGHT}), so a model warmed up on them writes most
 * functions wrongly, each in its own places, and reinforcement learning has to find the right reading of each
 * wording. The hidden tests tell every misreading apart from the right program (each misreading fails at least
 * one of them), and are graded by pass ratio; the reference solution is the program with every wording read right.
 */
public final class FunctionTasks {
    /** The generator's name in configs. */
    public static final String NAME = "functions";
    /** The function's name. */
    public static final String ENTRY = "f";
    /** How often a warm-up demonstration reads a hard wording right. */
    public static final double READ_RIGHT = 0.35;
    /** How often a task has a second filter. */
    public static final double SECOND_FILTER = 0.7;
    /** Hidden tests per task. */
    public static final int HIDDEN_TESTS = 6;

    private static final Pattern NUMBER = Pattern.compile("-?\\d+");

    private FunctionTasks() {}

    /** What the function computes from the numbers that pass the filters. */
    public enum Aggregate {
        SUM("the sum of", false),
        COUNT("the count of", false),
        MAX("the largest of", false),
        SQUARES("the sum of the squares of", true);

        public final String words;
        /** Whether demonstrations misread this wording more often than not. */
        public final boolean hard;

        Aggregate(String words, boolean hard) {
            this.words = words;
            this.hard = hard;
        }

        /** The program's update of {@code r}; the sum of the squares misread is the sum. */
        String line(boolean misread) {
            return switch (this) {
                case SUM -> "r+=x";
                case COUNT -> "r+=1";
                case MAX -> "r=max(r,x)";
                case SQUARES -> misread ? "r+=x" : "r+=x*x";
            };
        }

        long apply(long r, long x, boolean misread) {
            return switch (this) {
                case SUM -> r + x;
                case COUNT -> r + 1;
                case MAX -> Math.max(r, x);
                case SQUARES -> misread ? r + x : r + x * x;
            };
        }
    }

    /** A filter's test of {@code x}. */
    public enum Condition {
        AT_LEAST(true),
        AT_MOST(true),
        OVER(false),
        UNDER(false),
        EVEN(false),
        ODD(false),
        NOT_MULTIPLE(true),
        OTHER_THAN(true);

        /** Whether demonstrations misread this wording more often than not. */
        public final boolean hard;

        Condition(boolean hard) {
            this.hard = hard;
        }
    }

    /** A filter: its condition and its number ({@code k}, unused by even and odd). */
    public record Filter(Condition condition, int k) {
        public String words() {
            return switch (condition) {
                case AT_LEAST -> "at least " + k;
                case AT_MOST -> "at most " + k;
                case OVER -> "over " + k;
                case UNDER -> "under " + k;
                case EVEN -> "even";
                case ODD -> "odd";
                case NOT_MULTIPLE -> "not multiples of " + k;
                case OTHER_THAN -> "other than " + k;
            };
        }

        /** The Python condition, read right or misread (the bound taken as strict, the "not" or "other" lost). */
        public String expression(boolean misread) {
            boolean m = misread && condition.hard;
            return switch (condition) {
                case AT_LEAST -> (m ? "x>" : "x>=") + k;
                case AT_MOST -> (m ? "x<" : "x<=") + k;
                case OVER -> "x>" + k;
                case UNDER -> "x<" + k;
                case EVEN -> "x%2==0";
                case ODD -> "x%2==1";
                case NOT_MULTIPLE -> "x%" + k + (m ? "==0" : "!=0");
                case OTHER_THAN -> (m ? "x==" : "x!=") + k;
            };
        }

        public boolean test(long x, boolean misread) {
            boolean m = misread && condition.hard;
            return switch (condition) {
                case AT_LEAST -> m ? x > k : x >= k;
                case AT_MOST -> m ? x < k : x <= k;
                case OVER -> x > k;
                case UNDER -> x < k;
                case EVEN -> x % 2 == 0;
                case ODD -> x % 2 == 1;
                case NOT_MULTIPLE -> m ? x % k == 0 : x % k != 0;
                case OTHER_THAN -> m ? x == k : x != k;
            };
        }
    }

    /**
     * A task: the row the code task sees, and the structure demonstrations are made from. A program's reading is
     * an array over {@link #parts}: {@code misread[0]} for the aggregate, then one per filter in order.
     */
    public record FunctionTask(CodeItem item, Aggregate aggregate, List<Filter> filters) {
        public FunctionTask {
            filters = List.copyOf(filters);
        }

        /** Wordings a program can read: the aggregate, then each filter. */
        public int parts() {
            return 1 + filters.size();
        }

        /** Whether part {@code i} ({@link #parts}) has a misreading. */
        public boolean hard(int i) {
            return i == 0 ? aggregate.hard : filters.get(i - 1).condition().hard;
        }

        /** The program that reads part {@code i} wrongly where {@code misread[i]}. */
        public String program(boolean[] misread) {
            StringBuilder cond = new StringBuilder();
            for (int i = 0; i < filters.size(); i++) {
                cond.append(i == 0 ? "" : " and ").append(filters.get(i).expression(misread[i + 1]));
            }
            return "def " + ENTRY + "(xs):\n r=0\n for x in xs:\n  if " + cond + ":" + aggregate.line(misread[0])
                    + "\n return r\n";
        }

        /** What {@link #program} returns on {@code xs}, computed here so that demonstrations need no sandbox. */
        public long value(List<Integer> xs, boolean[] misread) {
            long r = 0;
            for (int x : xs) {
                boolean pass = true;
                for (int i = 0; i < filters.size(); i++) {
                    pass &= filters.get(i).test(x, misread[i + 1]);
                }
                if (pass) {
                    r = aggregate.apply(r, x, misread[0]);
                }
            }
            return r;
        }

        /** The program with every wording read right: the reference solution. */
        public String reference() {
            return program(new boolean[parts()]);
        }
    }

    /** A call of the function on {@code xs}, as tests write it: {@code f([3,7,9])}. */
    public static String call(List<Integer> xs) {
        return ENTRY + "(" + literal(xs) + ")";
    }

    /** A list as a Python literal without spaces: {@code [3,7,9]}. */
    private static String literal(List<Integer> xs) {
        return xs.toString().replace(" ", "");
    }

    /** The list of a call written by {@link #call} (the numbers inside it, in order). */
    static List<Integer> parseCall(String call) {
        List<Integer> xs = new ArrayList<>();
        Matcher m = NUMBER.matcher(call.substring(call.indexOf('(') + 1));
        while (m.find()) {
            xs.add(Integer.parseInt(m.group()));
        }
        return xs;
    }

    /**
     * The task of a seed from {@link SeededProblems}. Seeds of the splits are disjoint, and tasks are split by
     * content too ({@link ContentSplit}), so train, validation and test questions never coincide.
     */
    public static FunctionTask of(long seed) {
        return ContentSplit.row(seed, FunctionTasks::draw, t -> t.item().question());
    }

    /** A task from {@code seed}, or null when it has no hard wording or no hidden tests tell its misreadings apart. */
    private static FunctionTask draw(long seed, long idSeed) {
        SplittableRandom rng = new SplittableRandom(seed);
        Aggregate aggregate = Aggregate.values()[rng.nextInt(Aggregate.values().length)];
        List<Filter> filters = new ArrayList<>();
        filters.add(filter(rng));
        if (rng.nextDouble() < SECOND_FILTER) {
            Filter second = filter(rng);
            if (compatible(filters.get(0), second)) {
                filters.add(second);
            }
        }
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < filters.size(); i++) {
            words.append(i == 0 ? "" : " and ").append(filters.get(i).words());
        }
        String question = ENTRY + "(xs) returns " + aggregate.words + " the numbers in xs that are " + words
                + (aggregate == Aggregate.MAX ? " (0 if none)." : ".");
        FunctionTask bare = new FunctionTask(null, aggregate, filters);
        boolean anyHard = false;
        for (int i = 0; i < bare.parts(); i++) {
            anyHard |= bare.hard(i);
        }
        if (!anyHard) {
            return null; // every task has a wording to read right
        }
        List<List<Integer>> lists = hiddenLists(bare, rng);
        if (lists == null) {
            return null;
        }
        boolean[] right = new boolean[bare.parts()];
        List<TestCase> tests = new ArrayList<>();
        StringBuilder check = new StringBuilder("def check(candidate):\n");
        for (List<Integer> xs : lists) {
            long v = bare.value(xs, right);
            tests.add(new TestCase(call(xs), Long.toString(v)));
            check.append("    assert candidate(")
                    .append(literal(xs))
                    .append(") == ")
                    .append(v)
                    .append('\n');
        }
        String stub = "def " + ENTRY + "(xs):\n    \"\"\"" + question + "\"\"\"\n";
        CodeItem item = new CodeItem(
                NAME + "-" + Long.toUnsignedString(idSeed, 36),
                question,
                tests,
                bare.reference(),
                new CodeItem.Functional(stub, ENTRY, check.toString()));
        return new FunctionTask(item, aggregate, filters);
    }

    private static Filter filter(SplittableRandom rng) {
        Condition c = Condition.values()[rng.nextInt(Condition.values().length)];
        int k = switch (c) {
            case AT_LEAST, AT_MOST, OVER, UNDER -> 3 + rng.nextInt(16);
            case NOT_MULTIPLE -> 3 + rng.nextInt(3);
            case OTHER_THAN -> rng.nextInt(21);
            case EVEN, ODD -> 0;
        };
        return new Filter(c, k);
    }

    /** Two filters make sense together: different conditions, not even with odd. */
    private static boolean compatible(Filter a, Filter b) {
        if (a.condition() == b.condition()) {
            return false;
        }
        return !(a.condition() == Condition.EVEN && b.condition() == Condition.ODD
                || a.condition() == Condition.ODD && b.condition() == Condition.EVEN);
    }

    /**
     * Lists of 4-8 numbers in 0-20, each filter's number put into some of them (where a bound is read strictly or
     * not), such that every combination of misreadings returns something else than the right program on at least
     * one list, and at least half the lists have a non-zero answer; null when 50 tries find none.
     */
    private static List<List<Integer>> hiddenLists(FunctionTask t, SplittableRandom rng) {
        for (int attempt = 0; attempt < 50; attempt++) {
            List<List<Integer>> lists = new ArrayList<>();
            for (int i = 0; i < HIDDEN_TESTS; i++) {
                List<Integer> xs = new ArrayList<>();
                int n = 4 + rng.nextInt(5);
                for (int j = 0; j < n; j++) {
                    xs.add(rng.nextInt(21));
                }
                for (Filter f : t.filters()) {
                    if (f.condition() != Condition.EVEN && f.condition() != Condition.ODD && rng.nextBoolean()) {
                        xs.set(rng.nextInt(n), f.k());
                    }
                }
                lists.add(xs);
            }
            if (separates(t, lists)) {
                return lists;
            }
        }
        return null;
    }

    private static boolean separates(FunctionTask t, List<List<Integer>> lists) {
        boolean[] right = new boolean[t.parts()];
        long nonZero = lists.stream().filter(xs -> t.value(xs, right) != 0).count();
        if (nonZero * 2 < lists.size()) {
            return false;
        }
        List<Integer> hard = new ArrayList<>();
        for (int i = 0; i < t.parts(); i++) {
            if (t.hard(i)) {
                hard.add(i);
            }
        }
        for (int mask = 1; mask < 1 << hard.size(); mask++) {
            boolean[] misread = new boolean[t.parts()];
            for (int b = 0; b < hard.size(); b++) {
                misread[hard.get(b)] = (mask >> b & 1) == 1;
            }
            boolean differs = false;
            for (List<Integer> xs : lists) {
                differs |= t.value(xs, misread) != t.value(xs, right);
            }
            if (!differs) {
                return false;
            }
        }
        return true;
    }
}
