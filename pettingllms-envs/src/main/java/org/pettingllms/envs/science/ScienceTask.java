package org.pettingllms.envs.science;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.data.TeamTask;
import org.pettingllms.envs.data.TextLines;

/**
 * {@code science-v1} (ENVIRONMENTS.md): a lab with a hidden law ({@link Lab}). An {@code experimenter} chooses one
 * experiment a turn (a whole number for every variable) and its noisy measurement is added to what both see; a
 * {@code theorist} proposes the law ({@code y = <expression>}), which ends the episode, or writes {@code more}. With
 * roles {@code [theorist]} the single agent does both, with the team's model calls ({@link #CALLS_PER_TURN} replies for
 * each of the team's T turns).
 *
 * <p>Rewards. Theorist: a proposal's team reward is its accuracy, the share of the lab's eight held-out experiments it
 * predicts within 5% (success: all eight); {@code more} earns 0; a reply that is neither -1 (local). A proposal made
 * while the measurements still allow laws of the family that predict differently ({@link ScienceScripted#agree}:
 * public rules, as the agents could work it out) and a turn remains is a guess: its local reward is -1, right or
 * wrong. Each (role, turn) group is paid on its own turn (AT-GRPO.md: no returns across turns), so without this a
 * request for more (0) lost to any guess that predicts some held-out experiments, and the first trained teams learnt
 * to propose at once (greedy validation success 22% to 0% in 20 L2 steps); now a guess earns at most what asking
 * earns, as in {@code search-v1}. Experimenter
 * (local, the informative-experiment reward): half the share of the laws still possible (the family of
 * {@link Law#family}, consistent with every measurement so far) that its measurement rules out, so a repeated or
 * uninformative experiment earns about 0; a reply that is not an experiment -0.5.
 */
public final class ScienceTask extends TeamTask<LabState> implements ScriptedPlay, Demonstrations {
    public static final String EXPERIMENTER = "experimenter";
    public static final String THEORIST = "theorist";
    public static final List<String> TEAM = List.of(EXPERIMENTER, THEORIST);
    public static final int CALLS_PER_TURN = 2;
    /** Relative noise of a measurement. */
    public static final double NOISE = 0.01;

    /** An experiment is a few settings: a longer answer is not one. */
    static final int MAX_EXPERIMENT = 100;

    private static final Pattern SETTING = Pattern.compile("([a-z]+)\\s*=\\s*(-?\\d{1,6})");
    private static final Pattern LAW = Pattern.compile("y\\s*=\\s*(.+)");

    ScienceTask(List<String> roles, int teamTurns) {
        super(roles, TEAM, THEORIST, teamCalls(roles, teamTurns, CALLS_PER_TURN));
    }

    @Override
    public String id() {
        return "science-v1";
    }

    @Override
    public LabState initialState(Problem problem) {
        ProblemSource.Split split;
        try {
            split = SeededProblems.splitOf(problem.seed());
        } catch (IllegalArgumentException e) {
            split = ProblemSource.Split.TRAIN; // seeds made otherwise (tests)
        }
        return LabState.start(Lab.generate(problem.seed(), split, NOISE));
    }

    @Override
    public Prompt prompt(LabState state, String role, int turn, PromptStyle style) {
        return SciencePrompts.of(id(), state, role, alone(), maxTurns() - turn, style);
    }

    @Override
    public Transition<LabState> step(LabState state, String role, Completion completion) {
        String answer = TextLines.firstLine(completion.text());
        if (role.equals(EXPERIMENTER)) {
            return experiment(state, answer);
        }
        Transition<LabState> t = theorist(state, answer);
        return t.withNext(t.next().replied());
    }

    private Transition<LabState> theorist(LabState state, String answer) {
        Matcher law = LAW.matcher(answer);
        if (law.matches()) {
            return propose(state, law.group(1));
        }
        if (alone() && experimentOf(state.lab(), answer).isPresent()) {
            return experiment(state, answer);
        }
        if (!alone() && answer.replaceAll("[^a-zA-Z]", "").equalsIgnoreCase("more")) {
            return new Transition<>(state, RewardParts.ZERO, false, false, StepOutcome.OK, "more");
        }
        return new Transition<>(
                state,
                new RewardParts(-1, 0, 0),
                false,
                false,
                StepOutcome.UNPARSEABLE,
                "neither a law nor " + (alone() ? "an experiment" : "more") + ": " + TextLines.oneLine(answer, 80));
    }

    private Transition<LabState> experiment(LabState s, String answer) {
        Optional<Map<String, Double>> x = experimentOf(s.lab(), answer);
        if (x.isEmpty()) {
            return new Transition<>(
                    s,
                    new RewardParts(-0.5, 0, 0),
                    false,
                    false,
                    StepOutcome.UNPARSEABLE,
                    "not an experiment: " + TextLines.oneLine(answer, 80));
        }
        LabState next = s.measured(x.get());
        int before = s.consistent().size();
        int after = next.consistent().size();
        double local = before == 0 ? 0 : 0.5 * (before - after) / before;
        return new Transition<>(
                next,
                new RewardParts(local, 0, 0),
                false,
                false,
                StepOutcome.OK,
                next.data().get(next.data().size() - 1).text() + " (" + after + " laws left)");
    }

    private Transition<LabState> propose(LabState s, String expression) {
        double accuracy;
        try {
            Expression.check(expression, new java.util.HashSet<>(s.lab().variables()));
            accuracy = s.lab().accuracy(expression);
        } catch (IllegalArgumentException e) {
            return new Transition<>(
                    s,
                    new RewardParts(-1, 0, 0),
                    false,
                    false,
                    StepOutcome.UNPARSEABLE,
                    "not a law (" + e.getMessage() + "): " + TextLines.oneLine(expression, 80));
        }
        boolean solved = accuracy == 1.0;
        boolean guess = s.replies() + 1 < maxTurns() && !determined(s);
        LabState next = new LabState(s.lab(), s.data(), s.proposals() + 1, s.replies());
        return new Transition<>(
                next,
                new RewardParts(guess ? -1 : 0, accuracy, 0),
                true,
                solved,
                solved ? StepOutcome.SOLVED : StepOutcome.OK,
                "y = " + TextLines.oneLine(expression, 80)
                        + String.format(" (%.0f%% of held-out right)", 100 * accuracy)
                        + (guess ? " guess" : ""));
    }

    /** Whether the laws the measurements still allow all predict the same (none left counts as determined). */
    static boolean determined(LabState s) {
        List<Law> left = s.consistent();
        return left.isEmpty() || ScienceScripted.agree(left, s.lab().variables());
    }

    /** The settings an answer names: every variable of the lab once, each a whole number in range; else empty. */
    static Optional<Map<String, Double>> experimentOf(Lab lab, String answer) {
        if (answer.length() > MAX_EXPERIMENT) {
            return Optional.empty(); // and no regex search over a long answer (quadratic in its length)
        }
        Map<String, Double> x = new LinkedHashMap<>();
        answer = answer.toLowerCase(java.util.Locale.ROOT); // positions below are in this string
        Matcher m = SETTING.matcher(answer);
        int end = 0;
        while (m.find()) {
            if (!answer.substring(end, m.start()).replaceAll("[\\s,;]", "").isEmpty()) {
                return Optional.empty(); // something between the settings
            }
            String name = m.group(1);
            int v = Integer.parseInt(m.group(2));
            if (!lab.variables().contains(name) || x.containsKey(name) || v < Lab.LOW || v > Lab.HIGH) {
                return Optional.empty();
            }
            x.put(name, (double) v);
            end = m.end();
        }
        if (x.size() != lab.variables().size()
                || !answer.substring(end).replaceAll("[\\s,;.]", "").isEmpty()) {
            return Optional.empty();
        }
        Map<String, Double> ordered = new LinkedHashMap<>();
        lab.variables().forEach(v -> ordered.put(v, x.get(v)));
        return Optional.of(ordered);
    }

    /**
     * Warm-up demonstrations: the scripted team's answers at skill {@code 1 - noise} over the first {@code turns}
     * turns; in the share {@code settings.habits()} of the labs, the hasty theorist's ({@link ScienceScripted#hasty}:
     * a law proposed after two measurements, before the design is done), for the team's theorist and the single agent
     * alike, so the table compares like with like.
     */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        TextPolicy team = scripted(1 - settings.noise(), List.of(problem));
        if (settings.habits() > 0 && rng.nextDouble() < settings.habits()) {
            team = ScienceScripted.hasty(team);
        }
        return Demonstrations.fromScripted(this, team, problem, style, settings.turns(), rng);
    }

    /** The scripted team: it plays from its prompts and the public family of laws (never the hidden one). */
    @Override
    public TextPolicy scripted(double skill, List<Problem> problems) {
        return ScienceScripted.policy(skill);
    }
}
