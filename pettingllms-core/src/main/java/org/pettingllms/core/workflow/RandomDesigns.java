package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Valid designs drawn at random, what a designer's warm-up shows it (docs/WORKFLOWS.md, "The designer's warm-up"):
 * one of seven shapes, drawn uniformly, filled with the task's agent lines. The draw never looks at the problem, so
 * a designer warmed up on it writes every shape for every kind of problem alike, and which shape suits which kind is
 * left for reinforcement learning to find.
 *
 * <p>Shapes: one answerer; an ensemble of 3 or of 5 with a majority vote; an ensemble of 3 read by the judge; an
 * answerer then a reflection (critic, reviser); a debate of 2 rounds between two answerers; a route (the router) to
 * a branch per answerer. An answerer is one of {@code answerers}, drawn uniformly each time one is needed.
 *
 * @param answerers agent lines that answer the problem ({@code agent solver [python]: Write a program ...})
 * @param critic    a reflection's critic line
 * @param reviser   a reflection's reviser line
 * @param judge     an ensemble's judge line
 * @param router    a route's router line
 * @param branches  the branch names of a route, one per answerer in order
 */
public record RandomDesigns(
        List<String> answerers, String critic, String reviser, String judge, String router, List<String> branches) {
    /** The number of shapes a draw picks from. */
    public static final int SHAPES = 7;

    public RandomDesigns {
        answerers = List.copyOf(answerers);
        branches = List.copyOf(branches);
        Objects.requireNonNull(critic, "critic");
        Objects.requireNonNull(reviser, "reviser");
        Objects.requireNonNull(judge, "judge");
        Objects.requireNonNull(router, "router");
        if (answerers.isEmpty() || branches.size() != answerers.size()) {
            throw new IllegalArgumentException("need one or more answerers and a branch name for each");
        }
    }

    /** A design of shape {@code shape} (0 to {@link #SHAPES} - 1), its answerers drawn from {@code rng}. */
    public String draw(int shape, SplittableRandom rng) {
        List<String> lines = new ArrayList<>();
        switch (shape) {
            case 0 -> lines.add(answerer(rng));
            case 1, 2 -> {
                lines.add("ensemble " + (shape == 1 ? 3 : 5) + " majority");
                lines.add("  " + answerer(rng));
            }
            case 3 -> {
                lines.add("ensemble 3 judge");
                lines.add("  " + answerer(rng));
                lines.add("  " + judge);
            }
            case 4 -> {
                lines.add("sequence");
                lines.add("  " + answerer(rng));
                lines.add("  reflect");
                lines.add("    " + critic);
                lines.add("    " + reviser);
            }
            case 5 -> {
                lines.add("debate 2");
                lines.add("  " + answerer(rng));
                lines.add("  " + answerer(rng));
            }
            case 6 -> {
                lines.add("route");
                lines.add("  " + router);
                for (int i = 0; i < answerers.size(); i++) {
                    lines.add("  branch " + branches.get(i));
                    lines.add("    " + answerers.get(i));
                }
            }
            default -> throw new IllegalArgumentException("shape " + shape + " of " + SHAPES);
        }
        return String.join("\n", lines) + "\n";
    }

    /** A design of a shape drawn uniformly. */
    public String draw(SplittableRandom rng) {
        return draw(rng.nextInt(SHAPES), rng);
    }

    private String answerer(SplittableRandom rng) {
        return answerers.get(rng.nextInt(answerers.size()));
    }
}
