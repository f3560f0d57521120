package org.pettingllms.envs.math;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.data.ContentSplit;
import org.pettingllms.envs.math.MathRows.MathItem;

/**
 * Generated multi-step arithmetic word problems: the CPU-scale problem source of {@code math-v1}
 * ({@code task.options.generator: arithmetic}; ENVIRONMENTS.md, math). A person starts with a number of things and
 * does three things to them, each worded so that the wording decides the operation ("receives 40 from a friend"
 * adds, "sells 3 boxes of 25" subtracts a product, "shares them equally with 3 friends and keeps one share" divides
 * by 4); with probability {@link #MOVED} the first of them is written last ("Before all that, ..."), so the wording
 * also decides the order. Numbers are too large to guess: a start of 100-999, amounts of 10-999, packs of 11-99.
 *
 * <p>Each wording has a natural misreading ({@link Kind#misread}); the warm-up demonstrations of the tool's program
 * misread the hard wordings more often than not ({@link #READ_RIGHT}), and take a moved step in the written order,
 * so a model warmed up on them computes most problems wrongly, and reinforcement learning has to find the right
 * reading of each wording. The correct program exists only as a combination of readings that sampling can reach.
 */
public final class WordProblems {
    /** The generator's name in configs. */
    public static final String NAME = "arithmetic";
    /** Operations per problem. */
    public static final int STEPS = 3;
    /** How often the first step is written last, after "Before all that,". */
    public static final double MOVED = 0.3;
    /** How often a warm-up program reads a hard wording (or a moved step's order) right. */
    public static final double READ_RIGHT = 0.35;

    private static final String[][] PEOPLE = {
        {"Ann", "she"},
        {"Ben", "he"},
        {"Cara", "she"},
        {"Dev", "he"},
        {"Eva", "she"},
        {"Finn", "he"},
        {"Gia", "she"},
        {"Hugo", "he"}
    };
    private static final String[] THINGS = {
        "stickers", "marbles", "coins", "cards", "shells", "stamps", "beads", "pencils"
    };

    private WordProblems() {}

    /** What a step does, how it is worded, how a program writes it, and how it is misread. */
    public enum Kind {
        FIND(false),
        RECEIVE(true),
        GIVE(false),
        LOSE(false),
        BUY_PACKS(true),
        SELL_BOXES(true),
        DOUBLE(false),
        TRIPLE(true),
        SHARE(true);

        /** Whether demonstrations misread this wording more often than not. */
        public final boolean hard;

        Kind(boolean hard) {
            this.hard = hard;
        }
    }

    /** One step: its kind and its numbers ({@code b} is used by packs and boxes only). */
    public record Step(Kind kind, long a, long b) {
        /** The words after the subject, e.g. {@code buys 5 packs of 46}. */
        public String words() {
            return switch (kind) {
                case FIND -> "finds " + a + " more";
                case RECEIVE -> "receives " + a + " from a friend";
                case GIVE -> "gives away " + a;
                case LOSE -> "loses " + a;
                case BUY_PACKS -> "buys " + a + " packs of " + b;
                case SELL_BOXES -> "sells " + a + " boxes of " + b;
                case DOUBLE -> "doubles them";
                case TRIPLE -> "triples them";
                case SHARE -> "shares them equally with " + a + " friends and keeps one share";
            };
        }

        /** The program's line for this step, read right or misread. */
        public String line(boolean misread) {
            if (misread && kind.hard) {
                return switch (kind) {
                    case RECEIVE -> "x-=" + a;
                    case BUY_PACKS -> "x+=" + a + "+" + b;
                    case SELL_BOXES -> "x+=" + a + "*" + b;
                    case TRIPLE -> "x+=3";
                    case SHARE -> "x//=" + a;
                    default -> throw new IllegalStateException(kind.name());
                };
            }
            return switch (kind) {
                case FIND, RECEIVE -> "x+=" + a;
                case GIVE, LOSE -> "x-=" + a;
                case BUY_PACKS -> "x+=" + a + "*" + b;
                case SELL_BOXES -> "x-=" + a + "*" + b;
                case DOUBLE -> "x*=2";
                case TRIPLE -> "x*=3";
                case SHARE -> "x//=" + a + "+1";
            };
        }

        /** What {@link #line} does to {@code x}, as Python computes it (floor division). */
        public long apply(long x, boolean misread) {
            if (misread && kind.hard) {
                return switch (kind) {
                    case RECEIVE -> x - a;
                    case BUY_PACKS -> x + a + b;
                    case SELL_BOXES -> x + a * b;
                    case TRIPLE -> x + 3;
                    case SHARE -> Math.floorDiv(x, a);
                    default -> throw new IllegalStateException(kind.name());
                };
            }
            return switch (kind) {
                case FIND, RECEIVE -> x + a;
                case GIVE, LOSE -> x - a;
                case BUY_PACKS -> x + a * b;
                case SELL_BOXES -> x - a * b;
                case DOUBLE -> x * 2;
                case TRIPLE -> x * 3;
                case SHARE -> Math.floorDiv(x, a + 1);
            };
        }
    }

    /**
     * A problem: the row the task sees, and the structure demonstrations are made from.
     *
     * @param steps  in the order they happen
     * @param moved  whether the first step is written last ("Before all that, ...")
     */
    public record WordProblem(MathItem item, long start, List<Step> steps, boolean moved) {
        public WordProblem {
            steps = List.copyOf(steps);
        }

        /** The correct answer. */
        public long answer() {
            return run(start, steps, new boolean[steps.size()]);
        }
    }

    /**
     * A program for {@code p}: a line per step, each hard wording misread where {@code misread} says, the steps in
     * the written order when {@code writtenOrder} (a moved step last), and a final print.
     */
    public static String program(WordProblem p, boolean[] misread, boolean writtenOrder) {
        StringBuilder sb = new StringBuilder("x=").append(p.start()).append('\n');
        for (int i : order(p, writtenOrder)) {
            sb.append(p.steps().get(i).line(misread[i])).append('\n');
        }
        return sb.append("print(x)\n").toString();
    }

    /** What {@link #program} prints, computed here so that demonstrations need no sandbox. */
    public static long output(WordProblem p, boolean[] misread, boolean writtenOrder) {
        long x = p.start();
        for (int i : order(p, writtenOrder)) {
            x = p.steps().get(i).apply(x, misread[i]);
        }
        return x;
    }

    private static int[] order(WordProblem p, boolean writtenOrder) {
        int n = p.steps().size();
        int[] o = new int[n];
        for (int i = 0; i < n; i++) {
            o[i] = writtenOrder && p.moved() ? (i + 1) % n : i;
        }
        return o;
    }

    private static long run(long x, List<Step> steps, boolean[] misread) {
        for (int i = 0; i < steps.size(); i++) {
            x = steps.get(i).apply(x, misread[i]);
        }
        return x;
    }

    /**
     * The problem of a seed from {@link SeededProblems}. Seeds of the splits are disjoint, and problems are split by
     * content too ({@link ContentSplit}), so train, validation and test questions never coincide.
     */
    public static WordProblem of(long seed) {
        return ContentSplit.row(seed, WordProblems::draw, p -> p.item().question());
    }

    private static WordProblem draw(long seed, long idSeed) {
        SplittableRandom rng = new SplittableRandom(seed);
        String[] person = PEOPLE[rng.nextInt(PEOPLE.length)];
        String things = THINGS[rng.nextInt(THINGS.length)];
        long start = 100 + rng.nextInt(900);
        List<Step> steps = new ArrayList<>();
        long x = start;
        while (steps.size() < STEPS) {
            Step step = step(Kind.values()[rng.nextInt(Kind.values().length)], x, rng);
            if (step != null) {
                steps.add(step);
                x = step.apply(x, false);
            }
        }
        boolean moved = rng.nextDouble() < MOVED;
        String name = person[0];
        String pronoun = person[1];
        String capital = Character.toUpperCase(pronoun.charAt(0)) + pronoun.substring(1);
        StringBuilder q = new StringBuilder(name)
                .append(" has ")
                .append(start)
                .append(' ')
                .append(things)
                .append(". ")
                .append(capital)
                .append(' ');
        List<Step> written = moved ? steps.subList(1, steps.size()) : steps;
        for (int i = 0; i < written.size(); i++) {
            q.append(i == 0 ? "" : ", then ").append(written.get(i).words());
        }
        q.append('.');
        if (moved) {
            q.append(" Before all that, ")
                    .append(pronoun)
                    .append(' ')
                    .append(steps.get(0).words())
                    .append('.');
        }
        q.append(" How many ").append(things).append(" does ").append(name).append(" have now?");
        long answer = run(start, steps, new boolean[steps.size()]);
        return new WordProblem(
                new MathItem(NAME + "-" + Long.toUnsignedString(idSeed, 36), q.toString(), Long.toString(answer)),
                start,
                steps,
                moved);
    }

    /** A step of {@code kind} that keeps the count positive and whole, or null when none fits {@code x}. */
    private static Step step(Kind kind, long x, SplittableRandom rng) {
        return switch (kind) {
            case FIND, RECEIVE -> new Step(kind, 10 + rng.nextInt(990), 0);
            case GIVE, LOSE -> x <= 20 ? null : new Step(kind, 10 + rng.nextLong(Math.min(990, x - 10)), 0);
            case BUY_PACKS -> new Step(kind, 2 + rng.nextInt(8), 11 + rng.nextInt(89));
            case SELL_BOXES -> {
                long a = 2 + rng.nextInt(8);
                long b = 11 + rng.nextInt(89);
                yield a * b < x ? new Step(kind, a, b) : null;
            }
            case DOUBLE, TRIPLE -> x > 3000 ? null : new Step(kind, 0, 0);
            case SHARE -> {
                List<Long> fits = new ArrayList<>();
                for (long a = 2; a <= 5; a++) {
                    if (x % (a + 1) == 0) {
                        fits.add(a);
                    }
                }
                yield fits.isEmpty() ? null : new Step(kind, fits.get(rng.nextInt(fits.size())), 0);
            }
        };
    }
}
