package org.pettingllms.cli;

import java.util.List;
import java.util.Map;

/**
 * The text of a {@code table}: a row per method and a column per game, each cell the mean (min-max) over the seeds
 * with the 95% interval over one seed's problems, the share of new programs as a last row where a task counts them,
 * and the note under the table that says what was measured. Apart from {@link TableCommand}, which measures the
 * cells: how a finished table reads changes without touching how its cells are measured, and the other way round.
 *
 * @param steps           the trained rows' steps, null for each game's L2 config's
 * @param problemsPerStep the trained rows' problems per step, null for each game's L2 config's
 */
record TableMarkdown(
        List<String> games,
        List<Long> seeds,
        int evalProblems,
        long firstProblem,
        Integer steps,
        Integer problemsPerStep) {
    /** The table, then the note that says what its cells measured. */
    String of(Map<String, Map<String, List<Double>>> results) {
        StringBuilder sb = new StringBuilder("| method |");
        games.forEach(g -> sb.append(' ').append(g).append(" |"));
        sb.append("\n|---|").append("---|".repeat(games.size())).append('\n');
        for (String m : TableCommand.METHODS) {
            sb.append("| ").append(m).append(" |");
            for (String g : games) {
                List<Double> v = results.get(m).getOrDefault(g, List.of());
                sb.append(' ').append(cell(v)).append(" |");
            }
            sb.append('\n');
        }
        if (!results.get(TableCommand.NEW_PROGRAMS).isEmpty()) {
            sb.append("| ").append(TableCommand.NEW_PROGRAMS).append(" |");
            for (String g : games) {
                sb.append(' ')
                        .append(share(results.get(TableCommand.NEW_PROGRAMS).getOrDefault(g, List.of())))
                        .append(" |");
            }
            sb.append('\n');
        }
        sb.append("\nGreedy success (%) on the test split, problems ")
                .append(firstProblem)
                .append('-')
                .append(firstProblem + evalProblems - 1)
                .append(" of each run seed (each seed draws its own; no run")
                .append(" trains on the test split and no choice is tuned on it): mean (min-max) over seeds ")
                .append(seeds)
                .append(", +/- the 95% interval over one seed's ")
                .append(evalProblems)
                .append(" problems; trained rows: ")
                .append(steps != null ? steps + " steps" : "each game's L2 config's steps")
                .append(" x ")
                .append(problemsPerStep != null ? problemsPerStep + " problems" : "its problems per step")
                .append(". One-role rows: that role plays on the other role's trained adapter, the other keeps its own")
                .append(
                        " (first role: the tool, the coder, the explorer, the designer, the experimenter or the household's"
                                + " planner; second: the planner, reasoner, tester, writer, theorist or actor).");
        if (!results.get(TableCommand.NEW_PROGRAMS).isEmpty()) {
            sb.append(" Last row: of the trained L2 tool's greedy programs in those evaluations (every turn), the")
                    .append(
                            " share that is none of the game's flawed programs (its catalog's, and the combinations of wrong")
                    .append(" places a discovery warm-up shows; for a base model warmed up with the correct program")
                    .append(" withheld: programs no demonstration contained); mean")
                    .append(" (min-max) over seeds.");
        }
        return sb.append('\n').toString();
    }

    /** A share's cell: mean (min-max) over seeds, no interval (the programs of one board's turns are not independent). */
    static String share(List<Double> v) {
        if (v.isEmpty()) {
            return "-";
        }
        var s = v.stream().mapToDouble(Double::doubleValue).summaryStatistics();
        return String.format("%.1f (%.1f-%.1f)", 100 * s.getAverage(), 100 * s.getMin(), 100 * s.getMax());
    }

    String cell(List<Double> v) {
        return cell(v, evalProblems);
    }

    /**
     * Mean (min-max) over seeds, and the normal-approximation 95% half-width over the problems:
     * {@code 1.96 * sqrt(p (1 - p) / problems)}, over one seed's problems: each seed plays test problems of its
     * own, so the pooled interval would be narrower, but the seeds' runs differ too and the cell stays conservative.
     */
    static String cell(List<Double> v, int problems) {
        if (v.isEmpty()) {
            return "-";
        }
        var s = v.stream().mapToDouble(Double::doubleValue).summaryStatistics();
        double mean = s.getAverage();
        double half = 1.96 * Math.sqrt(mean * (1 - mean) / problems);
        return v.size() == 1
                ? String.format("%.1f +/- %.1f", 100 * mean, 100 * half)
                : String.format(
                        "%.1f (%.1f-%.1f) +/- %.1f", 100 * mean, 100 * s.getMin(), 100 * s.getMax(), 100 * half);
    }
}
