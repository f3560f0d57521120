package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.Rollouts;
import org.pettingllms.core.rollout.StepRecord;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.core.workflow.DesignExecutor.Ran;

/**
 * A designer and the executors of its workflows, rolled out for one training step (docs/WORKFLOWS.md; the
 * MetaAgent-X loop, without the reference's defects). Per problem: the designer samples N = {@code rollout.k}
 * designs; each design that parses runs M = {@link DesignConfig#executions} times, every call sampled at the
 * rollout's temperature (the reference's executors were greedy, so the M executions of a design were nearly one);
 * a rollout with k = 1 runs one design once (validation and evaluation: {@code validation.samplesPerProblem}
 * designs, each once).
 *
 * <p>Rewards and groups. An execution's reward is its answer's score; each of its calls is a sample of that reward,
 * all of them one GRPO unit (so an execution counts once in its group's statistics), and a role's n calls in one
 * execution each weigh 1 / n in the loss (the per-call advantage is {@code A / n}, A its group's advantage for the
 * execution), so that in every role's group a long workflow weighs as much as a short one. A design's reward is the
 * mean score of its M executions, minus {@link DesignConfig#callCost} times their mean calls; a design that does not
 * parse or is over budget is {@link DesignConfig#invalidReward} and runs nothing. The designer's group is the N
 * designs of a problem (role {@value #DESIGNER}, apart from every executor's group whatever the run's grouping); the
 * executors' are a role's calls over all executions of a problem or of one design ({@link
 * DesignConfig.ExecutorGroups}), by the run's grouping. The side the schedule freezes at this step gives no samples.
 * An episode is one execution; the design's own step is in its first execution's path only, so the designer's
 * metrics count each design once.
 *
 * <p>Repeatable: the designs and then the executions run in lockstep with the sampler ({@code rollout.lockstep}),
 * each call seeded by its problem, design, execution and place, so a seed gives the same samples whatever the
 * timing of threads.
 */
public final class DesignedRollouts implements Rollouts {
    public static final String DESIGNER = "designer";
    /** What a designer sample's problem id adds: its group never holds an executor's, whatever the grouping. */
    static final String DESIGNS = "|designs";

    private final DesignTask task;
    private final Sampler sampler;
    private final DesignConfig design;
    private final WorkflowLimits sizes;
    private final RolloutProgress progress;
    private final Function<Problem, String> workflow;
    private final DesignExecutor executor;
    private final Map<String, Double> counters = new LinkedHashMap<>();
    private int step;

    /** @param sizes the bounds a design must keep (its roles and tools are the task's) */
    public DesignedRollouts(
            DesignTask task, Sampler sampler, DesignConfig design, WorkflowLimits sizes, RolloutProgress progress) {
        this(task, sampler, design, sizes, progress, (String) null);
    }

    /**
     * @param workflow a fixed design every problem runs instead of the designer's (null: the designer's); with it
     *                 there is no designer role, one design a problem, and {@code rollout.k} executions of it
     */
    public DesignedRollouts(
            DesignTask task,
            Sampler sampler,
            DesignConfig design,
            WorkflowLimits sizes,
            RolloutProgress progress,
            String workflow) {
        this(task, sampler, design, sizes, progress, workflow == null ? null : p -> workflow);
    }

    /**
     * @param workflow the design each problem runs instead of the designer's (null: the designer's): one written by
     *                 hand for all, or one drawn per problem ({@link DesignedSystem#withRandomDesigns})
     */
    public DesignedRollouts(
            DesignTask task,
            Sampler sampler,
            DesignConfig design,
            WorkflowLimits sizes,
            RolloutProgress progress,
            Function<Problem, String> workflow) {
        this.task = task;
        this.sampler = sampler;
        this.design = design;
        this.sizes = sizes;
        this.progress = progress;
        this.workflow = workflow;
        this.executor = new DesignExecutor(task, design);
    }

    /** A designed system's roles: the designer, then the task's executor roles. */
    public static List<String> roles(DesignTask task) {
        List<String> roles = new ArrayList<>();
        roles.add(DESIGNER);
        roles.addAll(task.executorRoles());
        return roles;
    }

    @Override
    public void beginStep(int step) {
        this.step = step;
    }

    @Override
    public List<String> roles() {
        return workflow == null ? roles(task) : task.executorRoles();
    }

    @Override
    public synchronized Map<String, Double> drainMetrics() {
        Map<String, Double> out = Map.copyOf(counters);
        counters.clear();
        return out;
    }

    /** A problem's N designs: each the designer's answer and its workflow, or why it is none. */
    private record Designed(
            Problem problem, DesignTask.Posed posed, Prompt prompt, List<Completion> answers, List<Parsed> parsed) {}

    /** A design's answer parsed: a workflow, or the error that is its reward. */
    private sealed interface Parsed {}

    private record Valid(Workflow workflow) implements Parsed {}

    private record Invalid(WorkflowError error) implements Parsed {}

    /** Where an execution stands: its problem, its design and its number among that design's M. */
    private record Place(int problem, int design, int execution) {}

    @Override
    public RolloutResult run(List<Problem> problems, PolicyMap policies, RolloutConfig config) {
        long start = System.nanoTime();
        for (String role : roles()) {
            policies.policyOf(role); // fail before any work when a role has no policy
        }
        boolean fixed = workflow != null;
        int n = fixed ? 1 : config.k();
        int m = fixed ? config.k() : n == 1 ? 1 : design.executions();
        long seed = config.sampling().seed();
        PolicyRef designer = fixed ? null : policies.policyOf(DESIGNER);
        // 1. N designs a problem, one request each, in lockstep
        List<Function<Sampler, Designed>> designJobs = new ArrayList<>();
        for (Problem p : problems) {
            designJobs.add(s -> {
                DesignTask.Posed posed = task.pose(p);
                Prompt prompt = DesignPrompts.designer(
                        posed.text(), task.executorRoles(), posed.tools().keySet(), config.style());
                List<Completion> answers = fixed
                        ? List.of(Completion.ofText(workflow.apply(p)))
                        : s.sample(
                                designer, prompt, n, config.sampling().withSeed(Seeds.derive(seed, p.id(), "designs")));
                WorkflowParser parser = new WorkflowParser(sizes.with(
                        java.util.Set.copyOf(task.executorRoles()),
                        posed.tools().keySet()));
                List<Parsed> parsed = new ArrayList<>();
                for (Completion c : answers) {
                    try {
                        parsed.add(new Valid(parser.parse(fixed ? c.text() : WorkflowParser.designIn(c.text()))));
                    } catch (WorkflowError e) {
                        parsed.add(new Invalid(e));
                    }
                }
                return new Designed(p, posed, prompt, answers, parsed);
            });
        }
        List<Designed> designed = jobs(designJobs, config, RolloutProgress.NONE);
        // 2. every valid design M times, each execution its own job, in lockstep
        List<Function<Sampler, Ran>> runJobs = new ArrayList<>();
        List<Place> where = new ArrayList<>(); // of each job
        for (int pi = 0; pi < designed.size(); pi++) {
            Designed d = designed.get(pi);
            for (int i = 0; i < n; i++) {
                if (d.parsed().get(i) instanceof Valid(Workflow w)) {
                    for (int j = 0; j < m; j++) {
                        int di = i;
                        int ej = j;
                        runJobs.add(s -> executor.execute(d.problem(), d.posed(), w, di, ej, s, policies, config));
                        where.add(new Place(pi, i, j));
                    }
                }
            }
        }
        List<Ran> ran = jobs(runJobs, config, progress);
        Map<Place, Ran> byPlace = new HashMap<>();
        for (int r = 0; r < ran.size(); r++) {
            byPlace.put(where.get(r), ran.get(r));
        }
        // 3. rewards, samples and one episode per execution (per invalid design: one of the design alone)
        List<EpisodeResult> episodes = new ArrayList<>();
        boolean designerTrains = !fixed && design.trains(DesignConfig.Side.DESIGNER, step);
        boolean executorsTrain = design.trains(DesignConfig.Side.EXECUTORS, step);
        for (int pi = 0; pi < designed.size(); pi++) {
            Designed d = designed.get(pi);
            Problem p = d.problem();
            for (int i = 0; i < n; i++) {
                String unit = p.id() + "|design#" + i;
                Completion answer = d.answers().get(i);
                if (d.parsed().get(i) instanceof Invalid(WorkflowError e)) {
                    count("design/invalid", 1);
                    double r = design.invalidReward();
                    StepRecord rec = new StepRecord(
                            DESIGNER,
                            0,
                            d.prompt(),
                            answer.text(),
                            new RewardParts(r, 0, 0),
                            r,
                            StepOutcome.UNPARSEABLE,
                            e.getMessage(),
                            true,
                            false);
                    List<Sample> samples = designerTrains
                            ? List.of(designerSample(
                                    p, designer, d.prompt(), answer, r, StepOutcome.UNPARSEABLE, unit, i))
                            : List.of();
                    episodes.add(new EpisodeResult(p, i * m, List.of(rec), false, 1, samples, 0));
                    continue;
                }
                Workflow w = ((Valid) d.parsed().get(i)).workflow();
                count("design/valid", 1);
                count("design/calls", w.calls());
                count(DesignReport.SHAPE + d.posed().kind() + "/" + w.shape(), 1); // what reports break down by kind
                List<Ran> runs = new ArrayList<>();
                for (int j = 0; j < m; j++) {
                    runs.add(byPlace.get(new Place(pi, i, j)));
                }
                double meanScore =
                        runs.stream().mapToDouble(Ran::score).average().orElse(0);
                double meanCalls = runs.stream()
                        .mapToDouble(x -> x.completions().size())
                        .average()
                        .orElse(0);
                double designReward = meanScore - design.callCost() * meanCalls;
                for (int j = 0; j < m; j++) {
                    Ran x = runs.get(j);
                    List<StepRecord> path = new ArrayList<>();
                    List<Sample> samples = new ArrayList<>();
                    if (j == 0) { // the design once, in its first execution: its metrics count each design once
                        path.add(new StepRecord(
                                DESIGNER,
                                0,
                                d.prompt(),
                                answer.text(),
                                new RewardParts(designReward, 0, 0),
                                designReward,
                                StepOutcome.OK,
                                (fixed ? "a given workflow: " : "") + w.shape() + ", up to " + w.calls() + " calls",
                                false,
                                false));
                    }
                    if (j == 0 && designerTrains) {
                        samples.add(
                                designerSample(p, designer, d.prompt(), answer, designReward, StepOutcome.OK, unit, i));
                    }
                    boolean solved = x.score() >= 1;
                    String kind = DesignReport.KIND + d.posed().kind(); // success by problem kind, for reports
                    count(kind + "/executions", 1);
                    count(kind + "/solved", solved ? 1 : 0);
                    int calls = x.completions().size();
                    Map<String, Integer> perRole = new LinkedHashMap<>(); // a role's calls in this execution
                    x.execution().steps().forEach(st -> perRole.merge(st.call().role(), 1, Integer::sum));
                    for (int c = 0; c < calls; c++) {
                        WorkflowRunner.Step st = x.execution().steps().get(c);
                        boolean lastCall = c == calls - 1;
                        StepOutcome outcome = lastCall && solved ? StepOutcome.SOLVED : StepOutcome.OK;
                        path.add(new StepRecord(
                                st.call().role(),
                                0,
                                x.prompts().get(c),
                                st.reply(),
                                new RewardParts(x.score(), 0, 0),
                                x.score(),
                                outcome,
                                "line " + st.call().line() + (st.toolOutput().isEmpty() ? "" : ", tool ran")
                                        + (lastCall
                                                ? "; answer '"
                                                        + clip(x.execution().answer()) + "', score " + x.score()
                                                        + notes(x.execution())
                                                : ""),
                                lastCall,
                                lastCall && solved));
                        if (executorsTrain && !x.candidates().isEmpty()) {
                            // tree sampling at node calls: the node's K candidates are a group of their own, each
                            // paid its own output's score, each a unit of weight 1 / n as the calls of a chain are
                            String node = p.id() + "|design#" + i + "|exec#" + j + "|call#" + c;
                            List<Completion> cands = x.candidates().get(c);
                            for (int q = 0; q < cands.size(); q++) {
                                double sc = x.candidateScores().get(c).get(q);
                                samples.add(new Sample(
                                        node,
                                        st.call().role(),
                                        0,
                                        policies.policyOf(st.call().role()),
                                        x.prompts().get(c),
                                        cands.get(q),
                                        new RewardParts(sc, 0, 0),
                                        sc >= 1 ? StepOutcome.SOLVED : StepOutcome.OK,
                                        sc,
                                        node + "|cand#" + q,
                                        q,
                                        cands.get(q) == x.completions().get(c),
                                        1.0 / perRole.get(st.call().role())));
                            }
                        } else if (executorsTrain) {
                            String group = design.executorGroups() == DesignConfig.ExecutorGroups.DESIGN
                                    ? p.id() + "|design#" + i
                                    : p.id();
                            samples.add(new Sample(
                                    group,
                                    st.call().role(),
                                    0,
                                    policies.policyOf(st.call().role()),
                                    x.prompts().get(c),
                                    x.completions().get(c),
                                    new RewardParts(x.score(), 0, 0),
                                    outcome,
                                    x.score(),
                                    unit + "|exec#" + j,
                                    j,
                                    true,
                                    1.0 / perRole.get(st.call().role())));
                        }
                    }
                    episodes.add(new EpisodeResult(p, i * m + j, path, solved, 1, samples, calls));
                }
            }
        }
        return new RolloutResult(episodes, (System.nanoTime() - start) / 1e9);
    }

    private static Sample designerSample(
            Problem p,
            PolicyRef designer,
            Prompt prompt,
            Completion answer,
            double reward,
            StepOutcome outcome,
            String unit,
            int i) {
        return new Sample(
                p.id() + DESIGNS,
                DESIGNER,
                0,
                designer,
                prompt,
                answer,
                new RewardParts(reward, 0, 0),
                outcome,
                reward,
                unit,
                i,
                true);
    }

    private <T> List<T> jobs(List<Function<Sampler, T>> jobs, RolloutConfig config, RolloutProgress p) {
        if (config.lockstep()) {
            return RolloutEngine.inLockstep(jobs, sampler, config.concurrency(), p);
        }
        return RolloutEngine.inParallel(
                jobs.stream().map(job -> (Callable<T>) () -> job.apply(sampler)).toList(), config.concurrency(), p);
    }

    private synchronized void count(String key, double v) {
        counters.merge(key, v, Double::sum);
    }

    private static String notes(WorkflowRunner.Execution e) {
        return e.notes().isEmpty() ? "" : "; " + String.join("; ", e.notes());
    }

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
