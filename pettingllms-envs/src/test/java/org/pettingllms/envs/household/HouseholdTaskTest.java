package org.pettingllms.envs.household;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * {@code household-v1}: the scripted team, which plays from its prompts alone, solves every problem within 25 turns
 * and a random one almost none; rewards as documented; the single agent has the team's model calls; the task
 * contract for the team and the actor alone.
 */
class HouseholdTaskTest {
    static final RoomGenerator.Sizes SIZES = new RoomGenerator.Sizes(2, 1, 4);
    /** The team turns the shipped configs give: the scripted explorer needs up to about 25 on these rooms. */
    static final int TURNS = 25;

    static HouseholdTask task(List<String> roles) {
        return new HouseholdTask(roles, TURNS, SIZES);
    }

    static List<Problem> problems(HouseholdTask t, Split split, int n) {
        return t.problems(1).problems(split, 0, n);
    }

    @Test
    void theScriptedTeamSolvesEveryProblemFromItsPromptsAndARandomOneAlmostNone() {
        for (List<String> roles : List.of(HouseholdTask.TEAM, List.of(HouseholdTask.ACTOR))) {
            HouseholdTask t = task(roles);
            List<Problem> ps = problems(t, Split.TEST, 60);
            for (PromptStyle style : List.of(PromptStyle.COMPACT, PromptStyle.CHAT)) {
                assertThat(GreedyEvaluation.successRate(t, t.scripted(1, List.of()), ps, style, 64))
                        .as(roles + " " + style)
                        .isEqualTo(1.0);
            }
            assertThat(GreedyEvaluation.successRate(t, t.scripted(0, List.of()), ps, PromptStyle.COMPACT, 64))
                    .as(roles + " at random")
                    .isLessThan(0.2);
        }
    }

    @Test
    void theActorAloneGetsTheTeamsModelCalls() {
        assertThat(task(HouseholdTask.TEAM).maxTurns()).isEqualTo(TURNS);
        assertThat(task(List.of(HouseholdTask.ACTOR)).maxTurns()).isEqualTo(2 * TURNS);
        HouseholdTask alone = task(List.of(HouseholdTask.ACTOR));
        HouseholdState s = alone.initialState(problems(alone, Split.TRAIN, 1).get(0));
        assertThat(alone.prompt(s, HouseholdTask.ACTOR, 0, PromptStyle.COMPACT).text())
                .doesNotContain("plan:");
    }

    @Test
    void rewardsFollowTheExpertsPlanAndTheGoal() {
        HouseholdTask t = task(HouseholdTask.TEAM);
        HouseholdState s = t.initialState(problems(t, Split.TRAIN, 1).get(0));
        Expert.Next next = HouseholdTask.expert(s).orElseThrow();
        // the planner: the expert's sub-goal +0.1, another well-formed one 0, anything else -0.1
        assertThat(t.step(s, HouseholdTask.PLANNER, Completion.ofText(next.subgoal() + "\nwhy: ..."))
                        .reward()
                        .local())
                .isEqualTo(0.1);
        String other = next.subgoal().startsWith("find") ? "heat tomato" : "find tomato";
        Transition<HouseholdState> o = t.step(s, HouseholdTask.PLANNER, Completion.ofText(other));
        assertThat(o.reward().local()).isZero();
        assertThat(o.next().subgoal()).isEqualTo(other);
        Transition<HouseholdState> bad = t.step(s, HouseholdTask.PLANNER, Completion.ofText("go to the fridge please"));
        assertThat(bad.reward().local()).isEqualTo(-0.1);
        assertThat(bad.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        // the actor: the expert's command +0.1; a command the room refuses -0.1 and nothing changes but the count
        Transition<HouseholdState> good = t.step(s, HouseholdTask.ACTOR, Completion.ofText(next.command()));
        assertThat(good.reward().local()).isEqualTo(0.1);
        assertThat(good.reward().team()).isZero();
        Transition<HouseholdState> refused = t.step(s, HouseholdTask.ACTOR, Completion.ofText("fly to the moon"));
        assertThat(refused.reward().local()).isEqualTo(-0.1);
        assertThat(refused.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        assertThat(refused.next().room()).isEqualTo(s.room());
        assertThat(refused.next().feedback()).isEqualTo(Room.NOTHING);
        assertThat(refused.next().commands()).isEqualTo(1);
        // the expert's commands to the end: the last one solves, with team reward 1
        HouseholdState cur = s;
        Transition<HouseholdState> last = null;
        while (HouseholdTask.expert(cur).isPresent()) {
            last = t.step(
                    cur,
                    HouseholdTask.ACTOR,
                    Completion.ofText(HouseholdTask.expert(cur).get().command()));
            cur = last.next();
        }
        assertThat(last.done()).isTrue();
        assertThat(last.success()).isTrue();
        assertThat(last.reward().team()).isEqualTo(1.0);
        assertThat(last.outcome()).isEqualTo(StepOutcome.SOLVED);
    }

    @Test
    void aFirstLookInsideAReceptaclePaysTheActorAndPacingBetweenSeenOnesDoesNot() {
        // the apple waits in the closed drawer; the expert's plan (go to, open, take, go to, put) is 5 commands
        Room room = Room.start(
                List.of("countertop 1", "sinkbasin 1", "cabinet 1", "drawer 1"),
                Map.of("apple 1", "drawer 1", "knife 1", "cabinet 1"),
                Map.of());
        HouseholdTask t = task(HouseholdTask.TEAM);
        HouseholdState s = HouseholdState.start(room, new Goal(Goal.Type.PICK_PLACE, "apple", "countertop"));
        String[][] steps = {
            {"go to sinkbasin 1", "0.1"}, // a first look: the plan as it was, something learnt
            {"go to countertop 1", "0.1"},
            {"go to sinkbasin 1", "0.0"}, // pacing between receptacles already seen
            {"go to countertop 1", "0.0"},
            {"go to cabinet 1", "0.0"}, // closed: nothing inside shown yet
            {"open cabinet 1", "0.1"}, // now it is
            {"close cabinet 1", "0.0"},
            {"open cabinet 1", "0.0"}, // shown before
            {"go to drawer 1", "0.1"}, // the plan shortens
            {"go to cabinet 1", "-0.1"}, // and lengthens again
        };
        for (String[] step : steps) {
            Transition<HouseholdState> tr = t.step(s, HouseholdTask.ACTOR, Completion.ofText(step[0]));
            assertThat(tr.outcome()).as(step[0]).isEqualTo(StepOutcome.OK);
            assertThat(tr.reward().local()).as(step[0]).isEqualTo(Double.parseDouble(step[1]));
            s = tr.next();
        }
        assertThat(s.lookedInto())
                .as("the drawer still closed")
                .containsExactly("cabinet 1", "countertop 1", "sinkbasin 1");
    }

    @Test
    void promptsShowWhatTheAgentsNeedAndFitTheTinyModelsContext() {
        HouseholdTask t = task(HouseholdTask.TEAM);
        int longest = 0;
        // the scripted team, and one that wanders (half its answers random), which sees more of the room
        for (double skill : new double[] {1, 0.5}) {
            SplittableRandom rng = new SplittableRandom(7);
            TextPolicy policy = t.scripted(skill, List.of());
            for (Problem p : problems(t, Split.TRAIN, 100)) {
                HouseholdState s = t.initialState(p);
                for (int turn = 0; turn < TURNS; turn++) {
                    for (String role : t.roles()) {
                        var prompt = t.prompt(s, role, turn, PromptStyle.COMPACT);
                        longest = Math.max(longest, prompt.text().length());
                        s = t.step(s, role, Completion.ofText(policy.answer(null, prompt, rng)))
                                .next();
                    }
                    if (s.goal().satisfied(s.room())) {
                        break;
                    }
                }
            }
        }
        assertThat(longest)
                .as("a compact prompt, with room for a 40-character answer in 1,024")
                .isLessThan(984);
    }

    @Test
    void theActorsUnseenLineIsTheRoomsReceptaclesNotLookedIntoInTheOrderOfItsMoves() {
        HouseholdTask t = task(HouseholdTask.TEAM);
        HouseholdState s = t.initialState(problems(t, Split.TRAIN, 1).get(0));
        List<String> all = s.room().receptacles();
        assertThat(line(t.prompt(s, HouseholdTask.ACTOR, 0, PromptStyle.COMPACT).text(), "unseen: "))
                .isEqualTo(String.join(" | ", all));
        assertThat(t.prompt(s, HouseholdTask.PLANNER, 0, PromptStyle.COMPACT).text())
                .doesNotContain("unseen:");
        // go to the second receptacle, then the last: both leave the line, the rest keep the room's order
        s = t.step(s, HouseholdTask.ACTOR, Completion.ofText("go to " + all.get(1)))
                .next();
        s = t.step(s, HouseholdTask.ACTOR, Completion.ofText("go to " + all.get(all.size() - 1)))
                .next();
        List<String> rest = all.subList(0, all.size() - 1).stream()
                .filter(r -> !r.equals(all.get(1)))
                .toList();
        String actor = t.prompt(s, HouseholdTask.ACTOR, 2, PromptStyle.COMPACT).text();
        assertThat(line(actor, "unseen: ")).isEqualTo(String.join(" | ", rest));
        List<String> moves = HouseholdScripted.View.parse(actor).actions().stream()
                .filter(a -> a.startsWith("go to ") && rest.contains(a.substring(6)))
                .map(a -> a.substring(6))
                .toList();
        assertThat(moves).isEqualTo(rest);
        // the scripted explorer (nothing of the goal's kind seen there) goes to the line's first receptacle
        assertThat(HouseholdScripted.View.parse(actor).unseen()).isEqualTo(rest);
    }

    private static String line(String prompt, String prefix) {
        return prompt.lines()
                .filter(l -> l.startsWith(prefix))
                .findFirst()
                .orElseThrow()
                .substring(prefix.length());
    }

    @Nested
    class TeamContract extends TaskContract<HouseholdState> {
        @Override
        protected Task<HouseholdState> task() {
            return HouseholdTaskTest.task(HouseholdTask.TEAM);
        }

        @Override
        protected List<Problem> problems() {
            return HouseholdTaskTest.problems(HouseholdTaskTest.task(HouseholdTask.TEAM), Split.TRAIN, 12);
        }

        @Override
        protected TextPolicy policy() {
            HouseholdTask t = HouseholdTaskTest.task(HouseholdTask.TEAM);
            return halfRight(t.scripted(1, List.of()), t.scripted(0, List.of()));
        }
    }

    @Nested
    class ActorAloneContract extends TaskContract<HouseholdState> {
        @Override
        protected Task<HouseholdState> task() {
            return HouseholdTaskTest.task(List.of(HouseholdTask.ACTOR));
        }

        @Override
        protected List<Problem> problems() {
            return HouseholdTaskTest.problems(
                    HouseholdTaskTest.task(List.of(HouseholdTask.ACTOR)), Split.VALIDATION, 12);
        }

        @Override
        protected TextPolicy policy() {
            HouseholdTask t = HouseholdTaskTest.task(List.of(HouseholdTask.ACTOR));
            return halfRight(t.scripted(1, List.of()), t.scripted(0, List.of()));
        }
    }
}
