package org.pettingllms.envs.household;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.data.TeamTask;
import org.pettingllms.envs.data.TextLines;

/**
 * {@code household-v1} (ENVIRONMENTS.md): ALFWorld's task families as rules ({@link Room}, {@link Goal}). A
 * {@code planner} writes the next sub-goal, an {@code actor} issues one command; a turn is the planner's sub-goal, then
 * the actor's command, and the episode ends when the goal holds or after T turns. With roles {@code [actor]} the
 * single agent gets the team's model calls: {@link #CALLS_PER_TURN} commands for each of the team's T turns.
 *
 * <p>Rewards. Team: 1 on the command that reaches the goal (success), else 0. Actor (local): a command the room does
 * not admit -0.1; an admitted one +0.1 when it shortens the expert's plan from the room ({@link Expert#planLength}),
 * -0.1 when it lengthens it; one that leaves the plan as it was +0.1 when it looks into a receptacle for the first
 * time (exploring: the omniscient expert's plan cannot tell it from pacing between receptacles already seen, and the
 * first trained actor learnt to pace), else 0. Planner (local): +0.1 when its sub-goal is the expert's for the
 * room, 0 for another well-formed one, -0.1 for one that is not a sub-goal. AT-GRPO pays each (role, turn) group on
 * its own turn, so these shaped rewards are what tree groups compare; state groups (parallel rollouts) compare
 * discounted returns instead.
 */
public final class HouseholdTask extends TeamTask<HouseholdState> implements ScriptedPlay {
    public static final String PLANNER = "planner";
    public static final String ACTOR = "actor";
    public static final List<String> TEAM = List.of(PLANNER, ACTOR);
    public static final int CALLS_PER_TURN = 2;
    static final double SHAPING = 0.1;
    /** The expert's plans are looked at up to this many commands (generated goals need at most this). */
    static final int PLAN_CAP = 40;

    static final Pattern SUBGOAL =
            Pattern.compile("(find|take|clean|heat|cool) [a-z]+|use [a-z]+|put down [a-z]+|put [a-z]+ (in|on) [a-z]+");

    private final RoomGenerator.Sizes sizes;

    HouseholdTask(List<String> roles, int teamTurns, RoomGenerator.Sizes sizes) {
        super(roles, TEAM, ACTOR, teamCalls(roles, teamTurns, CALLS_PER_TURN));
        this.sizes = sizes;
    }

    @Override
    public String id() {
        return "household-v1";
    }

    @Override
    public HouseholdState initialState(Problem problem) {
        RoomGenerator.Generated g = RoomGenerator.generate(problem.seed(), split(problem.seed()), sizes);
        return HouseholdState.start(g.room(), g.goal());
    }

    /** The split whose seed range holds a problem's seed; seeds made otherwise (tests) count as training. */
    static ProblemSource.Split split(long seed) {
        try {
            return SeededProblems.splitOf(seed);
        } catch (IllegalArgumentException e) {
            return ProblemSource.Split.TRAIN;
        }
    }

    @Override
    public Prompt prompt(HouseholdState state, String role, int turn, PromptStyle style) {
        return HouseholdPrompts.of(id(), state, role, !alone(), style);
    }

    @Override
    public Transition<HouseholdState> step(HouseholdState state, String role, Completion completion) {
        String answer = TextLines.firstLine(completion.text());
        return role.equals(PLANNER) ? plan(state, answer) : act(state, answer);
    }

    private Transition<HouseholdState> plan(HouseholdState s, String answer) {
        String subgoal = Room.normalise(answer);
        if (!SUBGOAL.matcher(subgoal).matches()) {
            return new Transition<>(
                    s.withSubgoal(""),
                    new RewardParts(-SHAPING, 0, 0),
                    false,
                    false,
                    StepOutcome.UNPARSEABLE,
                    "not a sub-goal: " + TextLines.oneLine(answer, 80));
        }
        String expert =
                Expert.next(s.room(), s.goal()).map(Expert.Next::subgoal).orElse("");
        boolean right = subgoal.equals(expert);
        return new Transition<>(
                s.withSubgoal(subgoal),
                new RewardParts(right ? SHAPING : 0, 0, 0),
                false,
                false,
                StepOutcome.OK,
                subgoal + (right ? " (the expert's)" : ""));
    }

    private Transition<HouseholdState> act(HouseholdState s, String answer) {
        Room.Result r = s.room().act(answer);
        HouseholdState next = s.after(r);
        if (!r.admitted()) {
            return new Transition<>(
                    next,
                    new RewardParts(-SHAPING, 0, 0),
                    false,
                    false,
                    StepOutcome.INVALID_ACTION,
                    TextLines.oneLine(answer, 80) + " -> nothing happens");
        }
        boolean solved = s.goal().satisfied(r.room());
        int before = Expert.planLength(s.room(), s.goal(), PLAN_CAP);
        int after = solved ? 0 : Expert.planLength(r.room(), s.goal(), PLAN_CAP);
        // the omniscient expert walks straight to the object, so exploring leaves its plan as it was, and so does
        // walking to and fro between receptacles already seen: a first look inside a receptacle is what tells them
        // apart
        int progress = Integer.signum(before - after);
        double local = SHAPING * (progress != 0 ? progress : next.revealsMoreThan(s) ? 1 : 0);
        return new Transition<>(
                next,
                new RewardParts(local, solved ? 1 : 0, 0),
                solved,
                solved,
                solved ? StepOutcome.SOLVED : StepOutcome.OK,
                Room.normalise(answer) + (solved ? " -> solved" : ""));
    }

    /** The scripted team: it plays from what its prompts show (no hidden state), exploring what it has not seen. */
    @Override
    public TextPolicy scripted(double skill, List<Problem> problems) {
        return HouseholdScripted.policy(id(), skill);
    }

    /** The expert's next sub-goal and command for a state, for tests and demonstrations. */
    static Optional<Expert.Next> expert(HouseholdState s) {
        return Expert.next(s.room(), s.goal());
    }
}
