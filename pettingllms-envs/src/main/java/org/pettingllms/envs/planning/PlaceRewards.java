package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.StepOutcome;

/**
 * What each place of a discovery warm-up's programs is worth to RL (docs/learning-diagnosis.md, section 8). Every
 * flaw combination and the correct program are scored through their Java mirrors on the given problems' boards, as
 * the tool's first-turn reward ({@link PlanningTask#toolOutput}); then, for each place, fixing it is compared in
 * every combination of the other places. Where a fix pays only when other places are right, RL's push on that place
 * depends on where the others stand (Sudoku's search places; docs/learning-diagnosis.md, section 8, also says what
 * this does not explain).
 */
public final class PlaceRewards {
    private PlaceRewards() {}

    /** One program: its wrong places, the share of boards it solves and its mean reward. */
    public record Program(String name, Set<String> wrong, double solved, double reward) {}

    /**
     * One place: in how many of the other places' combinations ({@code contexts}) its fix earns more than
     * {@code pays} ({@code paying}), the mean gain over them, the gain when every other place is right, and the
     * smallest gain (negative: somewhere the wrong text earns more).
     */
    public record Place(
            String name, int contexts, int paying, double meanGain, double gainAloneWrong, double smallestGain) {}

    public record Report(List<Program> programs, List<Place> places) {}

    /**
     * @param pays the gain above which a fix counts as paying in a context
     * @throws IllegalArgumentException when the task's game has no places ({@link Game#flawPlaces})
     */
    public static <B, A> Report of(PlanningTask<B, A> task, List<Problem> problems, double pays) {
        Game<B, A> game = task.game();
        List<ProgramPlace> places = game.flawPlaces();
        if (places.isEmpty()) {
            throw new IllegalArgumentException(game.id() + " has no places: its flawed programs are no combinations");
        }
        List<B> boards =
                problems.stream().map(p -> task.initialState(p).board()).toList();
        List<ToolProgram<B>> all = new ArrayList<>(game.flawedPrograms());
        game.toolPrograms().stream().filter(ToolProgram::correct).findFirst().ifPresent(all::add);
        List<Program> programs = new ArrayList<>();
        Map<Set<String>, Double> rewardOf = new HashMap<>();
        for (ToolProgram<B> p : all) {
            Set<String> wrong = new TreeSet<>();
            for (ProgramPlace place : places) {
                if (place.wrongIn(p.source()).orElseThrow()) {
                    wrong.add(place.name());
                }
            }
            int solved = 0;
            double reward = 0;
            for (B b : boards) {
                var t = task.toolOutput(
                        PlanningState.start(b),
                        ToolRunner.Result.printed(p.output().apply(b)));
                reward += t.reward().local();
                solved += t.outcome() == StepOutcome.SOLVED ? 1 : 0;
            }
            Program scored =
                    new Program(p.name(), Set.copyOf(wrong), solved / (double) boards.size(), reward / boards.size());
            programs.add(scored);
            rewardOf.put(scored.wrong(), scored.reward());
        }
        List<Place> out = new ArrayList<>();
        for (ProgramPlace place : places) {
            int contexts = 0;
            int paying = 0;
            double sum = 0;
            double smallest = Double.POSITIVE_INFINITY;
            for (Map.Entry<Set<String>, Double> e : rewardOf.entrySet()) {
                if (e.getKey().contains(place.name())) {
                    continue;
                }
                Set<String> withFlaw = new TreeSet<>(e.getKey());
                withFlaw.add(place.name());
                double gain = e.getValue() - rewardOf.get(Set.copyOf(withFlaw));
                contexts++;
                paying += gain > pays ? 1 : 0;
                sum += gain;
                smallest = Math.min(smallest, gain);
            }
            double alone = rewardOf.get(Set.of()) - rewardOf.get(Set.of(place.name()));
            out.add(new Place(place.name(), contexts, paying, sum / contexts, alone, smallest));
        }
        return new Report(List.copyOf(programs), List.copyOf(out));
    }
}
