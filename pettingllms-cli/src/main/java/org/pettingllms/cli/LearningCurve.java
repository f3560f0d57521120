package org.pettingllms.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.StepReport;

/**
 * A game's learning curve from the table's training runs (their {@code metrics.jsonl}), in windows of steps, pooled
 * over the seeds: the training success of the L1 and L2 teams (the tree rollout's kept path on the step's training
 * problems; one window pools steps x problems x seeds episodes, where one step's 8 problems alone would be too noisy
 * to read), and, for a task that counts its tool's programs against a catalog, the share of the L2 tool's sampled
 * programs (temperature 1, all K candidates) that are exactly the correct one: for a base model never shown it,
 * how fast RL finds it.
 */
final class LearningCurve {
    static final String CORRECT = "tool/programs_catalog_correct";
    static final String PROGRAMS = "tool/programs";

    private LearningCurve() {}

    /** One window's numbers; NaN where no run of the level (or no program count) covers it. */
    record Window(int from, int to, double l1, double l2, double correctPrograms) {}

    /**
     * The windows of {@code window} steps over the longest run; {@code l1} and {@code l2} hold each seed's steps
     * (an absent run is an empty list).
     */
    static List<Window> of(List<List<StepReport>> l1, List<List<StepReport>> l2, int window) {
        int steps = 0;
        for (List<List<StepReport>> level : List.of(l1, l2)) {
            for (List<StepReport> run : level) {
                steps = Math.max(steps, run.size());
            }
        }
        List<Window> out = new ArrayList<>();
        for (int from = 0; from < steps; from += window) {
            int to = Math.min(steps, from + window) - 1;
            out.add(new Window(from, to, mean(l1, from, to), mean(l2, from, to), ratio(l2, from, to)));
        }
        return out;
    }

    /** The runs' steps in [from, to], every seed's. */
    private static Stream<StepReport> steps(List<List<StepReport>> runs, int from, int to) {
        return runs.stream().flatMap(List::stream).filter(r -> r.step() >= from && r.step() <= to);
    }

    /** Mean training success over the runs' steps in [from, to] (every step plays the same number of problems). */
    private static double mean(List<List<StepReport>> runs, int from, int to) {
        return steps(runs, from, to)
                .filter(r -> r.has(Metric.SUCCESS))
                .mapToDouble(r -> r.get(Metric.SUCCESS))
                .average()
                .orElse(Double.NaN);
    }

    /** Correct programs over all programs the runs' tools sampled in [from, to]. */
    private static double ratio(List<List<StepReport>> runs, int from, int to) {
        List<StepReport> counted = steps(runs, from, to)
                .filter(r -> r.has(CORRECT) && r.has(PROGRAMS))
                .toList();
        double programs = counted.stream().mapToDouble(r -> r.get(PROGRAMS)).sum();
        double correct = counted.stream().mapToDouble(r -> r.get(CORRECT)).sum();
        return programs == 0 ? Double.NaN : correct / programs;
    }

    /** A markdown table per game (games without runs are left out); empty when no game has one. */
    static String markdown(Map<String, List<Window>> curves, int seeds, int problemsPerStep) {
        StringBuilder sb = new StringBuilder();
        curves.forEach((game, windows) -> {
            if (windows.isEmpty()) {
                return;
            }
            boolean programs = windows.stream().anyMatch(w -> !Double.isNaN(w.correctPrograms()));
            sb.append("\n### Learning curve: ").append(game).append("\n\n| training steps | team L1 | team L2 |");
            sb.append(
                    programs
                            ? " L2 tool's sampled programs that are the correct one |\n|---|---|---|---|\n"
                            : "\n|---|---|---|\n");
            for (Window w : windows) {
                sb.append("| ")
                        .append(w.from())
                        .append('-')
                        .append(w.to())
                        .append(" | ")
                        .append(percent(w.l1()))
                        .append(" | ")
                        .append(percent(w.l2()))
                        .append(" |");
                if (programs) {
                    sb.append(' ').append(percent(w.correctPrograms())).append(" |");
                }
                sb.append('\n');
            }
        });
        if (sb.isEmpty()) {
            return "";
        }
        return sb.append(
                        "\nTraining success (%) of the team's rollouts on the steps' training problems (the tree's kept")
                .append(" path: the best of K candidates at each turn, sampled at the rollout temperature, so above")
                .append(" one greedy answer), pooled over the window's steps and ")
                .append(seeds)
                .append(" seeds (")
                .append(problemsPerStep > 0 ? problemsPerStep + " problems a step" : "each config's problems a step")
                .append("); the last column, where the task counts programs: the share of all programs the L2 tool")
                .append(" sampled in the window that are exactly the correct one. From the trained rows' runs")
                .append(" (`runs/table/<game>/L1-trained-seed<s>`, `L2-trained-seed<s>`; `./pettingllms report` draws")
                .append(" one run's every step).\n")
                .toString();
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format("%.1f", 100 * v);
    }
}
