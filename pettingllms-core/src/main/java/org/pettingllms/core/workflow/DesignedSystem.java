package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutSource;
import org.pettingllms.core.rollout.Rollouts;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource;

/**
 * A designer and the executors of its workflows as a run's {@link RolloutSource} (docs/WORKFLOWS.md): the design
 * task named by {@code task.name}, its own options in {@code task.options}, and how designs are rolled out and
 * trained in {@code task.options.design} ({@link Options}). A fixed workflow ({@link #withWorkflow}) replaces the
 * designer: every problem runs that one design (a person's workflow against the learned designer's).
 */
public final class DesignedSystem implements RolloutSource {
    /**
     * {@code task.options.design}: {@link DesignConfig}'s fields and the model calls one execution may make.
     *
     * @param maxCalls the most model calls one execution may make ({@link WorkflowLimits#maxCalls})
     */
    public record Options(
            int executions,
            DesignConfig.ExecutorGroups executorGroups,
            DesignConfig.Schedule schedule,
            int phaseSteps,
            DesignConfig.Side first,
            double invalidReward,
            double callCost,
            int nodeCandidates,
            double executorTemperature,
            int maxCalls) {
        static final Options DEFAULT = new Options(
                DesignConfig.DEFAULT.executions(),
                DesignConfig.DEFAULT.executorGroups(),
                DesignConfig.DEFAULT.schedule(),
                DesignConfig.DEFAULT.phaseSteps(),
                DesignConfig.DEFAULT.first(),
                DesignConfig.DEFAULT.invalidReward(),
                DesignConfig.DEFAULT.callCost(),
                DesignConfig.DEFAULT.nodeCandidates(),
                DesignConfig.DEFAULT.executorTemperature(),
                12);

        DesignConfig config() {
            return new DesignConfig(
                    executions,
                    executorGroups,
                    schedule,
                    phaseSteps,
                    first,
                    invalidReward,
                    callCost,
                    nodeCandidates,
                    executorTemperature);
        }
    }

    private static final java.util.regex.Pattern ROLE = java.util.regex.Pattern.compile("[a-z][a-z0-9_-]{0,23}");

    private final DesignTask task;
    private final DesignConfig design;
    private final WorkflowLimits sizes;
    private final String workflow;
    private final boolean random;

    private DesignedSystem(DesignTask task, DesignConfig design, WorkflowLimits sizes, String workflow) {
        this(task, design, sizes, workflow, false);
    }

    private DesignedSystem(
            DesignTask task, DesignConfig design, WorkflowLimits sizes, String workflow, boolean random) {
        this.random = random;
        this.task = task;
        this.design = design;
        this.sizes = sizes;
        this.workflow = workflow;
    }

    /** Whether a design task of this name is on the class path. */
    public static boolean has(String name) {
        return provider(name).isPresent();
    }

    /** The names of the design tasks on the class path. */
    public static Set<String> names() {
        Set<String> out = new TreeSet<>();
        ServiceLoader.load(DesignTaskProvider.class).forEach(p -> out.addAll(p.names()));
        return out;
    }

    /** The designed system {@code spec} names; a key of {@code task.options.design} it does not know is an error. */
    public static DesignedSystem create(RunConfig.TaskSpec spec) {
        DesignTaskProvider p = provider(spec.name())
                .orElseThrow(() -> new ConfigException(
                        "config key 'task.name': unknown design task '" + spec.name() + "'; available: " + names()));
        Map<String, Object> own = new LinkedHashMap<>(spec.options());
        Object d = own.remove("design");
        if (d != null && !(d instanceof Map<?, ?>)) {
            throw new ConfigException("config key 'task.options.design': expected a mapping, got " + d);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> designOptions = d == null ? Map.of() : (Map<String, Object>) d;
        Options o =
                ConfigLoader.bindOptions(designOptions, Options.DEFAULT, "task.options.design.", "task.options.design");
        DesignConfig config;
        try {
            config = o.config();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config key 'task.options.design': " + e.getMessage());
        }
        DesignTask task =
                p.create(new RunConfig.TaskSpec(spec.name(), spec.style(), spec.maxTurns(), spec.roles(), own));
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String role : task.executorRoles()) { // each a policy a design names, so a name a design can write
            if (!ROLE.matcher(role).matches() || role.equals(DesignedRollouts.DESIGNER) || !seen.add(role)) {
                throw new ConfigException("config key 'task.roles': executor roles are distinct names of lower-case"
                        + " letters, digits, '-' and '_' (at most 24, a letter first), none 'designer'; got "
                        + task.executorRoles());
            }
        }
        WorkflowLimits sizes = WorkflowLimits.of(Set.copyOf(task.executorRoles()), Set.of());
        try {
            sizes = sizes.withMaxCalls(o.maxCalls());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config key 'task.options.design.maxCalls': " + e.getMessage());
        }
        return new DesignedSystem(task, config, sizes, null);
    }

    /**
     * This system with one fixed workflow instead of a designer: {@code design} must parse for every problem (with
     * its tools); checked here on the first validation problem, so a wrong file is one error before anything runs.
     */
    public DesignedSystem withWorkflow(String design, String source) {
        List<org.pettingllms.core.data.Problem> first = task.problems(0).problems(ProblemSource.Split.VALIDATION, 0, 1);
        Set<String> tools =
                first.isEmpty() ? Set.of() : task.pose(first.get(0)).tools().keySet();
        try {
            new WorkflowParser(sizes.with(Set.copyOf(task.executorRoles()), tools)).parse(design);
        } catch (WorkflowError e) {
            throw new ConfigException(source + ": " + e.getMessage());
        }
        return new DesignedSystem(task, this.design, sizes, design);
    }

    /**
     * This system with a design drawn at random for each problem instead of the designer's (the table's "random valid
     * designs" row: what the warm-up shows the designer, {@link RandomDesigns}), seeded by the problem, so the same
     * problem always runs the same design.
     */
    public DesignedSystem withRandomDesigns() {
        if (!(task instanceof DesignDemonstrations)) {
            throw new ConfigException("design task " + task.id() + " has no random designs (it offers no warm-up)");
        }
        return new DesignedSystem(task, design, sizes, null, true);
    }

    /** The designer's prompt on {@code problem}, with no answer: what a dry run shows of a task without a warm-up. */
    public Demonstrations.Demo designerDemo(Problem problem, PromptStyle style) {
        DesignTask.Posed posed = task.pose(problem);
        return new Demonstrations.Demo(
                DesignedRollouts.DESIGNER,
                DesignPrompts.designer(
                        posed.text(), task.executorRoles(), posed.tools().keySet(), style),
                "");
    }

    /** Whether the design task offers a warm-up ({@link DesignDemonstrations}). */
    public boolean hasDemonstrations() {
        return task instanceof DesignDemonstrations;
    }

    /**
     * The warm-up demonstrations of one problem (docs/WORKFLOWS.md, "The designer's warm-up"): the designer's prompt
     * and a design drawn at random ({@link RandomDesigns}, blind to the problem), then that design run with the task's
     * scripted executor, every call's prompt and reply. The designer's demonstration is left out with a fixed
     * workflow, which has no designer.
     */
    public List<Demonstrations.Demo> demonstrations(
            Problem problem, PromptStyle style, Demonstrations.Settings settings, SplittableRandom rng) {
        if (!(task instanceof DesignDemonstrations demos)) {
            throw new ConfigException("config key 'task.name': design task " + task.id()
                    + " offers no warm-up demonstrations (it does not implement DesignDemonstrations)");
        }
        DesignTask.Posed posed = task.pose(problem);
        String design = workflow != null ? workflow : demos.designs().draw(rng);
        List<Demonstrations.Demo> out = new ArrayList<>();
        if (workflow == null) {
            Prompt prompt = DesignPrompts.designer(
                    posed.text(), task.executorRoles(), posed.tools().keySet(), style);
            out.add(new Demonstrations.Demo(
                    DesignedRollouts.DESIGNER, prompt, style == PromptStyle.CHAT ? "```\n" + design + "```" : design));
        }
        Workflow w;
        try {
            w = new WorkflowParser(sizes.with(
                            Set.copyOf(task.executorRoles()), posed.tools().keySet()))
                    .parse(design);
        } catch (WorkflowError e) { // the task's own agent lines: a defect of the task, not of a model
            throw new IllegalStateException(
                    "design task " + task.id() + " drew an invalid design: " + e.getMessage() + "\n" + design);
        }
        String[] printed = {""}; // the warm-up runs no program: the scripted reply says what its program prints
        Map<String, WorkflowTool> tools = new LinkedHashMap<>();
        posed.tools().keySet().forEach(t -> tools.put(t, code -> printed[0]));
        new WorkflowRunner(tools, posed.answerOf()).run(w, posed.text(), call -> {
            DesignDemonstrations.Reply r = demos.reply(problem, call, settings, rng);
            printed[0] = r.printed();
            out.add(new Demonstrations.Demo(call.role(), DesignPrompts.executor(call, style), r.text()));
            return r.text();
        });
        return out;
    }

    @Override
    public String id() {
        return task.id();
    }

    @Override
    public List<String> roles() {
        return workflow == null && !random ? DesignedRollouts.roles(task) : task.executorRoles();
    }

    @Override
    public ProblemSource problems(long seed) {
        return task.problems(seed);
    }

    @Override
    public Rollouts rollouts(Sampler sampler, RolloutProgress progress) {
        if (random) {
            RandomDesigns designs = ((DesignDemonstrations) task).designs();
            return new DesignedRollouts(
                    task,
                    sampler,
                    design,
                    sizes,
                    progress,
                    (Problem p) -> designs.draw(
                            new SplittableRandom(org.pettingllms.core.util.Seeds.derive(0, p.id(), "random design"))));
        }
        return new DesignedRollouts(task, sampler, design, sizes, progress, workflow);
    }

    private static Optional<DesignTaskProvider> provider(String name) {
        for (DesignTaskProvider p : ServiceLoader.load(DesignTaskProvider.class)) {
            if (p.names().contains(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
