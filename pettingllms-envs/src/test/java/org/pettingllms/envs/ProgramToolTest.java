package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.PlanningState;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.SolverDemonstrations;
import org.pettingllms.envs.planning.SolverPolicy;
import org.pettingllms.envs.planning.ToolProgram;
import org.pettingllms.envs.planning.ToolRunner;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sandbox.CodeBlocks;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** The program-writing tool of the planning games: programs run in the sandbox, rewards, prompts, cache, catalog. */
class ProgramToolTest {
    static final Sandbox BOX = Sandbox.create(SandboxLimits.DEFAULT.withWallTime(Duration.ofSeconds(2)), 2);
    static final PlanPathGame GAME = new PlanPathGame(PlanPathGame.Options.DEFAULT);
    static final List<ToolProgram<PathBoard>> CATALOG = GAME.toolPrograms();

    final ToolRunner runner = new ToolRunner(BOX, BOX.limits());
    final PlanningTask<PathBoard, List<Move>> task = new PlanningTask<>(
            GAME, List.of(PlanningTask.TOOL, PlanningTask.PLAN), 4, PlanningTask.ToolMode.PROGRAM, runner);

    PlanningState<PathBoard> start(long seed) {
        return task.initialState(Problem.generated("p" + seed, seed));
    }

    static String program(String name) {
        return CATALOG.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow()
                .source();
    }

    @Test
    void aCorrectProgramSolvesAndThePlannerSeesOnlyItsOutput() {
        PlanningState<PathBoard> s = start(3);
        Transition<PlanningState<PathBoard>> t = task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs")));
        assertThat(t.outcome()).isEqualTo(StepOutcome.SOLVED);
        String printed = t.next().proposal();
        var out = GAME.apply(s.board(), Move.parse(printed).orElseThrow());
        assertThat(out.success()).isTrue();
        assertThat(printed.length())
                .as("breadth-first: shortest")
                .isEqualTo(s.board().shortest());
        assertThat(t.reward().local()).isEqualTo(out.reward());
        assertThat(t.next().board()).as("the tool's answer is only simulated").isEqualTo(s.board());
        String prompt =
                task.prompt(t.next(), PlanningTask.PLAN, 0, PromptStyle.COMPACT).text();
        assertThat(prompt)
                .contains("tool: " + printed + "\n")
                .doesNotContain("->")
                .doesNotContain("goal")
                .doesNotContain("solved")
                .doesNotContain("invalid");
        String chat =
                task.prompt(t.next(), PlanningTask.PLAN, 0, PromptStyle.CHAT).text();
        assertThat(chat).contains(printed).doesNotContain("Simulated result").doesNotContain("goal yes");
    }

    @Test
    void aWrongProgramIsSimulatedAndAFencedOneIsRead() {
        PlanningState<PathBoard> s = start(4);
        String fenced = "Here it is:\n```python\n" + program("bfs-through-walls") + "```\n";
        Transition<PlanningState<PathBoard>> t = task.step(s, PlanningTask.TOOL, Completion.ofText(fenced));
        String expected = CATALOG.get(2).output().apply(s.board());
        assertThat(t.next().proposal()).isEqualTo(expected);
        assertThat(t.reward().local())
                .isEqualTo(GAME.apply(s.board(), Move.parse(expected).orElseThrow())
                        .reward());
    }

    @Tag("heavy")
    @Test
    void failuresEarnTheFixedPenaltyAndShowWhy() {
        PlanningState<PathBoard> s = start(5);
        var endless = task.step(s, PlanningTask.TOOL, Completion.ofText("while True:\n    pass\n"));
        assertThat(endless.reward().local()).isEqualTo(PlanningTask.PROGRAM_FAILURE);
        assertThat(endless.next().proposal()).isEqualTo("timeout");
        var crash = task.step(s, PlanningTask.TOOL, Completion.ofText("print(1/0)\n"));
        assertThat(crash.reward().local()).isEqualTo(PlanningTask.PROGRAM_FAILURE);
        assertThat(crash.next().proposal()).startsWith("error: ZeroDivisionError");
        var garbage = task.step(s, PlanningTask.TOOL, Completion.ofText("print('hello world 42')\n"));
        assertThat(garbage.reward().local()).isEqualTo(PlanningTask.PROGRAM_FAILURE);
        assertThat(garbage.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        assertThat(garbage.next().proposal()).isEqualTo("hello world 42");
        var silent = task.step(s, PlanningTask.TOOL, Completion.ofText("x = 1\n"));
        assertThat(silent.next().proposal()).isEqualTo("no output");
        assertThat(task.prompt(silent.next(), PlanningTask.PLAN, 0, PromptStyle.COMPACT)
                        .text())
                .contains("tool: no output\n");
    }

    @Test
    void identicalProgramsOnTheSameBoardRunOnce() {
        PlanningState<PathBoard> s = start(6);
        runner.drainMetrics();
        for (int i = 0; i < 4; i++) {
            task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs")));
        }
        task.step(start(7), PlanningTask.TOOL, Completion.ofText(program("bfs")));
        var m = task.drainMetrics();
        assertThat(m.get("tool/programs")).isEqualTo(5.0);
        assertThat(m.get("tool/executions")).isEqualTo(2.0);
        assertThat(m.get("tool/cache_hit_rate")).isEqualTo(0.6);
        assertThat(m.get("tool/sandbox_s")).isPositive();
        assertThat(m).containsKey("tool/sandbox_wait_s");
        assertThat(task.drainMetrics().get("tool/programs")).as("drained").isZero();
    }

    @Tag("heavy")
    @Test
    void limitsThatFireAreCountedPerStep() throws Exception {
        org.pettingllms.envs.sandbox.Sandbox box =
                org.pettingllms.envs.sandbox.Sandbox.create(org.pettingllms.envs.sandbox.SandboxLimits.DEFAULT, 2);
        // a CPU limit of 1 s with a wall clock of 20 s: a loop meets the first even on a busy machine (a wall clock
        // near the CPU limit raced the two under load); a wall clock of 1.5 s with 30 s of CPU: a sleeper meets it
        ToolRunner cpuBound = new ToolRunner(
                box,
                new org.pettingllms.envs.sandbox.SandboxLimits(
                        java.time.Duration.ofSeconds(20), 1, 1L << 30, 1 << 20, 32, 1 << 20));
        ToolRunner limited = new ToolRunner(
                box,
                new org.pettingllms.envs.sandbox.SandboxLimits(
                        java.time.Duration.ofMillis(1500), 30, 1L << 30, 1 << 20, 32, 1 << 20));
        cpuBound.run("while True:\n    pass\n", "");
        assertThat(cpuBound.drainMetrics().get("tool/cpu_limits")).isEqualTo(1.0);
        limited.run("import time\ntime.sleep(30)\n", "");
        limited.run("print(1)\n", "");
        var m = limited.drainMetrics();
        assertThat(m.get("tool/cpu_limits")).isZero();
        assertThat(m.get("tool/timeouts")).isEqualTo(1.0);
        assertThat(limited.drainMetrics().get("tool/timeouts")).as("drained").isZero();
        // a work limit: its CPU time, and a wall clock only a waiting program reaches
        var work = org.pettingllms.envs.sandbox.SandboxLimits.DEFAULT.forWork(java.time.Duration.ofMillis(1500));
        assertThat(work.cpuSeconds()).isEqualTo(2);
        assertThat(work.wallTime()).isEqualTo(java.time.Duration.ofSeconds(7));
    }

    @Test
    void theToolsProgramsAreCountedAgainstTheCatalog() {
        PlanningState<PathBoard> s = start(6);
        task.drainMetrics();
        task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs")));
        task.step(s, PlanningTask.TOOL, Completion.ofText(CodeBlocks.fence(program("bfs-cut-short"))));
        task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs-swapped-ud") + "\n"));
        // a flaw combination outside the catalog counts as flawed: a discovery model was shown it
        String combination = GAME.flawedPrograms().stream()
                .filter(p -> p.name().equals("bfs-stops-one-short+swapped-lr"))
                .findFirst()
                .orElseThrow()
                .source();
        assertThat(CATALOG).noneMatch(p -> p.source().equals(combination));
        task.step(s, PlanningTask.TOOL, Completion.ofText(combination));
        // the correct search with one harmless edit is still a program no catalog entry is
        task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs").replace("q=deque([a])", "q=deque([a]) ")));
        var m = task.drainMetrics();
        assertThat(m)
                .containsEntry(PlanningTask.PROGRAMS_CORRECT, 1.0)
                .containsEntry(PlanningTask.PROGRAMS_FLAWED, 3.0)
                .containsEntry(PlanningTask.PROGRAMS_OTHER, 1.0);
        assertThat(task.drainMetrics()).as("drained").containsEntry(PlanningTask.PROGRAMS_FLAWED, 0.0);
    }

    @Test
    void theToolsProgramsAreCountedPlaceByPlaceAlsoWhenWrongElsewhereInANewWay() {
        PlanningState<PathBoard> s = start(6);
        task.drainMetrics();
        String twoWrong = GAME.flawedPrograms().stream()
                .filter(p -> p.name().equals("bfs-stops-one-short+swapped-lr"))
                .findFirst()
                .orElseThrow()
                .source();
        task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs")));
        task.step(s, PlanningTask.TOOL, Completion.ofText(twoWrong));
        // no demonstration contained this one (an edit outside the places), yet its places are read
        task.step(s, PlanningTask.TOOL, Completion.ofText(twoWrong.replace("import sys", "import sys ")));
        task.step(s, PlanningTask.TOOL, Completion.ofText("print('UDLR')"));
        var m = task.drainMetrics();
        assertThat(GAME.flawPlaces())
                .extracting(ProgramPlace::name)
                .containsExactly("cut-short", "stops-one-short", "swapped-ud", "swapped-lr", "through-walls");
        assertThat(m)
                .containsEntry(PlanningTask.PROGRAMS_OTHER, 2.0)
                .containsEntry("tool/place/stops-one-short/right", 1.0)
                .containsEntry("tool/place/stops-one-short/wrong", 2.0)
                .containsEntry("tool/place/swapped-lr/wrong", 2.0)
                .containsEntry("tool/place/swapped-ud/right", 3.0)
                .containsEntry("tool/place/swapped-ud/wrong", 0.0)
                .containsEntry("tool/place/through-walls/right", 3.0);
        assertThat(task.drainMetrics()).as("drained").containsEntry("tool/place/swapped-lr/wrong", 0.0);
    }

    @Test
    void withheldCorrectProgramIsNeverDemonstratedAndTheFlawCombinationsComeInEqualShares() {
        SplittableRandom rng = new SplittableRandom(5);
        List<ToolProgram<PathBoard>> combinations = GAME.flawedPrograms();
        Map<String, Integer> shown = new TreeMap<>();
        int[] wrongAtEachPlace = new int[5];
        int draws = 1550;
        for (long seed = 0; seed < draws; seed++) {
            var demos = SolverDemonstrations.of(
                    task,
                    Problem.generated("d" + seed, seed),
                    PromptStyle.COMPACT,
                    new Demonstrations.Settings(0.3, 0.5, true, 1),
                    rng);
            String tool = demos.get(0).answer();
            assertThat(tool).isNotEqualTo(CATALOG.get(0).source());
            String name = combinations.stream()
                    .filter(c -> c.source().equals(tool))
                    .findFirst()
                    .orElseThrow()
                    .name();
            shown.merge(name, 1, Integer::sum);
            String[] places = {"cut-short", "stops-one-short", "swapped-ud", "swapped-lr", "through-walls"};
            for (int i = 0; i < places.length; i++) {
                wrongAtEachPlace[i] += name.contains(places[i]) ? 1 : 0;
            }
        }
        assertThat(shown).doesNotContainKey("bfs").hasSize(31);
        // 1,550 draws of 1/31: 50 each, sd about 7
        shown.values().forEach(n -> assertThat(n).isBetween(20, 80));
        // each place is wrong in 16 of the 31 combinations: about half the demonstrations, whatever the others
        for (int wrong : wrongAtEachPlace) {
            assertThat(wrong / (double) draws).isBetween(0.46, 0.58);
        }
    }

    @Tag("heavy")
    @Test
    void laterTurnsAreDemonstratedOnTheBoardTheEarlierMovesLeftUntilTheEpisodeEnds() {
        int twoTurns = 0;
        int oneTurn = 0;
        for (long seed = 0; seed < 30; seed++) {
            Problem p = Problem.generated("t" + seed, seed);
            var first = SolverDemonstrations.of(
                    task,
                    p,
                    PromptStyle.COMPACT,
                    new Demonstrations.Settings(0.3, 0.5, true, 1),
                    new SplittableRandom(seed));
            var demos = SolverDemonstrations.of(
                    task,
                    p,
                    PromptStyle.COMPACT,
                    new Demonstrations.Settings(0.3, 0.5, true, 2),
                    new SplittableRandom(seed));
            // the first turn is the one-turn demonstration, draw for draw: one-turn recipes give the same data
            assertThat(demos.subList(0, 2)).isEqualTo(first);
            // replayed through the task (the tool's program in the sandbox), each prompt is the one the task shows
            // at that turn, and nothing is demonstrated after the move that ends the episode
            var state = task.initialState(p);
            for (int i = 0; i < demos.size(); i++) {
                var d = demos.get(i);
                assertThat(d.role()).isEqualTo(i % 2 == 0 ? PlanningTask.TOOL : PlanningTask.PLAN);
                assertThat(d.prompt()).isEqualTo(task.prompt(state, d.role(), i / 2, PromptStyle.COMPACT));
                var t = task.step(state, d.role(), Completion.ofText(d.answer()));
                if (i < demos.size() - 1 || demos.size() == 2) {
                    // an earlier demonstration never ended it; a one-turn one stopped because its move did
                    assertThat(t.done())
                            .as("demo %d of %d ends the episode", i + 1, demos.size())
                            .isEqualTo(i == demos.size() - 1);
                }
                state = t.next();
            }
            assertThat(demos.size()).isIn(2, 4);
            twoTurns += demos.size() == 4 ? 1 : 0;
            oneTurn += demos.size() == 2 ? 1 : 0;
        }
        assertThat(twoTurns).as("episodes still going after the first turn").isPositive();
        assertThat(oneTurn).as("episodes the first move solved").isPositive();
    }

    @Test
    void timeInTheSandboxAndTimeWaitingForASlotAreCountedApart() throws Exception {
        Sandbox one = Sandbox.create(SandboxLimits.DEFAULT.withWallTime(Duration.ofSeconds(5)), 1);
        ToolRunner single = new ToolRunner(one, one.limits());
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var runs = new ArrayList<Future<ToolRunner.Result>>();
            for (int i = 0; i < 3; i++) {
                String slow = "import time\ntime.sleep(0.3)\nprint('R" + i + "')\n"; // three programs, one slot
                runs.add(pool.submit(() -> single.run(slow, "")));
            }
            for (var r : runs) {
                assertThat(r.get().ok()).isTrue();
            }
        }
        var m = single.drainMetrics();
        assertThat(m.get("tool/executions")).isEqualTo(3.0);
        assertThat(m.get("tool/sandbox_s")).as("three runs of 0.3 s each").isBetween(0.9, 3.0);
        // they ran one after another: the second waited for one run, the third for two
        assertThat(m.get("tool/sandbox_wait_s")).isGreaterThanOrEqualTo(0.85);
        assertThat(m.get("tool/sandbox_s") + m.get("tool/sandbox_wait_s")).isLessThan(6.0);
    }

    @Test
    void demonstrationsShowThePlannerWhatTheDemonstratedProgramPrints() {
        SplittableRandom rng = new SplittableRandom(1);
        int adopted = 0;
        for (long seed = 0; seed < 40; seed++) {
            var demos =
                    SolverDemonstrations.of(task, Problem.generated("d" + seed, seed), PromptStyle.COMPACT, 0.3, rng);
            ToolProgram<PathBoard> p = CATALOG.stream()
                    .filter(c -> c.source().equals(demos.get(0).answer()))
                    .findFirst()
                    .orElseThrow();
            String printed = p.output().apply(start(seed).board());
            String planPrompt = demos.get(1).prompt().text();
            assertThat(planPrompt).contains("tool: " + (printed.isEmpty() ? "no output" : printed) + "\n");
            adopted += !printed.isEmpty() && demos.get(1).answer().equals(printed) ? 1 : 0;
        }
        assertThat(adopted)
                .as("the planner sometimes adopts the printed answer")
                .isBetween(5, 35);
    }

    @Test
    void theScriptedTeamWritesProgramsAndChecksWhatTheyPrint() {
        var policy = new SolverPolicy<>(GAME, 1.0, true);
        var ref = PolicyRef.of("scripted");
        SplittableRandom rng = new SplittableRandom(3);
        PlanningState<PathBoard> s = start(9);
        String program = policy.answer(ref, task.prompt(s, PlanningTask.TOOL, 0, PromptStyle.COMPACT), rng);
        assertThat(program).isEqualTo(program("bfs"));
        var right = task.step(s, PlanningTask.TOOL, Completion.ofText(program)).next();
        String adopted = policy.answer(ref, task.prompt(right, PlanningTask.PLAN, 0, PromptStyle.COMPACT), rng);
        assertThat(GAME.apply(s.board(), Move.parse(adopted).orElseThrow()).success())
                .isTrue();
        var wrong = task.step(s, PlanningTask.TOOL, Completion.ofText(program("bfs-swapped-ud")))
                .next();
        String own = policy.answer(ref, task.prompt(wrong, PlanningTask.PLAN, 0, PromptStyle.COMPACT), rng);
        assertThat(own).as("a printed answer that fails is not adopted").isNotEqualTo(wrong.proposal());
    }
}
