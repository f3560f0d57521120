package org.pettingllms.envs.scienceworld;

import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.envs.data.CompactPrompts;
import org.pettingllms.envs.data.TeamTask;
import org.pettingllms.envs.data.TextLines;

/**
 * {@code scienceworld-v1}: ScienceWorld's tasks through its own jar ({@link ScienceWorldJar}), with the household
 * team's shape: a {@code planner} writes the next sub-goal, an {@code actor} issues one of the actions the simulator
 * admits; with roles {@code [actor]} the actor alone gets the team's model calls.
 *
 * <p>States are values: an episode is the list of its actions, and stepping from a state loads the task's variation
 * and replays them (on a simulator from a pool, the one already standing there when there is one), so tree sampling
 * steps K candidates from one state. Problems: the task's variations of ScienceWorld's own train, dev (our validation)
 * and test splits, in a seeded order. Rewards: team, the score's increase (ScienceWorld scores 0 to 1 by its
 * sub-goals); success when the task is completed with score 1; actor (local) -0.1 for an action the simulator does not
 * admit; planner (local) -0.1 for an empty sub-goal.
 */
public final class ScienceWorldTask extends TeamTask<SwState> {
    public static final String PLANNER = "planner";
    public static final String ACTOR = "actor";
    public static final List<String> TEAM = List.of(PLANNER, ACTOR);
    /** Admissible actions shown to the actor at most (ScienceWorld's lists run to hundreds). */
    static final int SHOWN_ACTIONS = 40;

    private final URLClassLoader jar;
    private final List<String> tasks;
    private final String simplifications;
    /** Idle simulators; a step borrows one (the one already standing where it starts, if any) and returns it. */
    private final java.util.ArrayDeque<Replayer> idle = new java.util.ArrayDeque<>();

    ScienceWorldTask(
            List<String> roles, int teamTurns, URLClassLoader jar, List<String> tasks, String simplifications) {
        super(roles, TEAM, ACTOR, teamCalls(roles, teamTurns, 2));
        this.jar = jar;
        this.simplifications = simplifications;
        Replayer first = borrow(null, -1, List.of());
        List<String> known = first.sim.taskNames();
        give(first);
        for (String t : tasks) {
            if (!known.contains(t)) {
                throw new org.pettingllms.core.config.ConfigException("config key 'task.options.tasks': '" + t
                        + "' is not a ScienceWorld task; the jar has " + known);
            }
        }
        this.tasks = tasks.isEmpty() ? known : List.copyOf(tasks);
    }

    @Override
    public String id() {
        return "scienceworld-v1";
    }

    /** Every (task, variation) of a split, in an order drawn from the run seed. */
    @Override
    public ProblemSource problems(long seed) {
        return (split, from, count) -> {
            String sw = switch (split) {
                case TRAIN -> "train";
                case VALIDATION -> "dev";
                case TEST -> "test";
            };
            List<Problem> all = new ArrayList<>();
            Replayer r = borrow(null, -1, List.of());
            try {
                for (String t : tasks) {
                    r.sim.load(t, 0, simplifications);
                    for (int v : r.sim.variations(sw)) {
                        all.add(new Problem(t + "#" + v, v, Map.of("task", t, "variation", v)));
                    }
                }
            } finally {
                r.task = null; // loaded, but not at any episode's state
                give(r);
            }
            Collections.shuffle(all, new java.util.Random(new SplittableRandom(seed).nextLong()));
            List<Problem> out = new ArrayList<>();
            for (long i = from; i < from + count && !all.isEmpty(); i++) {
                out.add(all.get((int) (i % all.size()))); // past the end the order repeats
            }
            return out;
        };
    }

    @Override
    public SwState initialState(Problem problem) {
        String task = (String) problem.fields().get("task");
        int variation = ((Number) problem.fields().get("variation")).intValue();
        Replayer r = borrow(task, variation, List.of());
        try {
            r.replay(task, variation, List.of(), simplifications);
            String obs = r.sim.step("look around");
            r.at.add("look around");
            return new SwState(
                    task,
                    variation,
                    r.sim.taskDescription(),
                    List.of("look around"),
                    obs,
                    r.sim.score(),
                    r.sim.completed(),
                    "",
                    r.sim.validActions());
        } finally {
            give(r);
        }
    }

    @Override
    public Prompt prompt(SwState s, String role, int turn, PromptStyle style) {
        List<String> lines = new ArrayList<>();
        lines.add("task: " + TextLines.oneLine(s.description(), 300));
        lines.add("score: " + Math.round(100 * s.score()));
        lines.add("last: " + TextLines.oneLine(s.observation(), 300));
        if (role.equals(ACTOR)) {
            if (!alone()) {
                lines.add("plan: " + (s.subgoal().isEmpty() ? "none" : s.subgoal()));
            }
            List<String> shown =
                    s.valid().subList(0, Math.min(SHOWN_ACTIONS, s.valid().size()));
            lines.add("actions: " + String.join(" | ", shown));
        }
        if (style == PromptStyle.COMPACT) {
            StringBuilder sb = CompactPrompts.header(id(), role);
            lines.forEach(l -> sb.append(l).append('\n'));
            return CompactPrompts.cue(sb);
        }
        return Prompt.chat(
                role.equals(PLANNER)
                        ? "You plan for an agent in ScienceWorld. Write the next sub-goal on one line."
                        : "You act in ScienceWorld. Answer with exactly one of the admissible actions.",
                String.join("\n", lines));
    }

    @Override
    public Transition<SwState> step(SwState s, String role, Completion completion) {
        String answer = TextLines.firstLine(completion.text());
        if (role.equals(PLANNER)) {
            String sub = answer.length() > 100 ? answer.substring(0, 100) : answer;
            return new Transition<>(
                    s.withSubgoal(sub),
                    new RewardParts(sub.isEmpty() ? -0.1 : 0, 0, 0),
                    false,
                    false,
                    sub.isEmpty() ? StepOutcome.UNPARSEABLE : StepOutcome.OK,
                    sub);
        }
        if (answer.length() > 200 || !s.valid().contains(answer)) {
            SwState same = new SwState(
                    s.task(),
                    s.variation(),
                    s.description(),
                    s.actions(),
                    "No known action matches that input.",
                    s.score(),
                    s.completed(),
                    s.subgoal(),
                    s.valid());
            return new Transition<>(
                    same,
                    new RewardParts(-0.1, 0, 0),
                    false,
                    false,
                    StepOutcome.INVALID_ACTION,
                    TextLines.oneLine(answer, 300) + " -> not admitted");
        }
        Replayer r = borrow(s.task(), s.variation(), s.actions());
        String obs;
        double score;
        boolean done;
        List<String> valid;
        try {
            r.replay(s.task(), s.variation(), s.actions(), simplifications);
            obs = r.sim.step(answer);
            r.at.add(answer);
            score = r.sim.score();
            done = r.sim.completed();
            valid = r.sim.validActions();
        } finally {
            give(r);
        }
        List<String> actions = new ArrayList<>(s.actions());
        actions.add(answer);
        boolean success = done && score >= 1.0;
        SwState next =
                new SwState(s.task(), s.variation(), s.description(), actions, obs, score, done, s.subgoal(), valid);
        return new Transition<>(
                next,
                new RewardParts(0, score - s.score(), 0),
                done,
                success,
                success ? StepOutcome.SOLVED : StepOutcome.OK,
                answer + " -> " + Math.round(100 * score));
    }

    /** An idle simulator, preferring one that stands where the caller starts; a new one when none is idle. */
    private Replayer borrow(String task, int variation, List<String> actions) {
        synchronized (idle) {
            for (Replayer r : idle) {
                if (r.at(task, variation, actions)) {
                    idle.remove(r);
                    return r;
                }
            }
            Replayer r = idle.pollFirst();
            if (r != null) {
                return r;
            }
        }
        return new Replayer(ScienceWorldJar.open(jar));
    }

    private void give(Replayer r) {
        synchronized (idle) {
            idle.addFirst(r);
        }
    }

    /** One thread's simulator and the actions it has taken since its last load. */
    private static final class Replayer {
        final ScienceWorldJar sim;
        String task;
        int variation = -1;
        List<String> at;

        Replayer(ScienceWorldJar sim) {
            this.sim = sim;
        }

        boolean at(String t, int v, List<String> actions) {
            return t != null && t.equals(task) && v == variation && actions.equals(at);
        }

        /** Brings the simulator to the state after {@code actions} of the task's variation. */
        void replay(String t, int v, List<String> actions, String simplifications) {
            if (at(t, v, actions)) {
                return;
            }
            sim.load(t, v, simplifications);
            task = t;
            variation = v;
            at = new ArrayList<>();
            for (String a : actions) {
                sim.step(a);
                at.add(a);
            }
        }
    }
}
