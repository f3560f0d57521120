package org.pettingllms.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutSource;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.core.workflow.DesignedSystem;
import org.pettingllms.text.backend.LearnerBackends;

/**
 * A loaded run: its config, what it rolls out (a task's team, or a designed system: {@code source}), the task when
 * it is one, and the role-to-policy map.
 */
record RunSetup(RunConfig config, Task<?> task, RolloutSource source, PolicyMap policies) {

    /** The task; a designed system has none, and a command that needs one says so in one line. */
    @Override
    public Task<?> task() {
        if (task == null) {
            throw new ConfigException(
                    "config key 'task.name': '" + config.task().name() + "' is a designed system (a"
                            + " designer and its workflows' executors, docs/WORKFLOWS.md); this works on a task's team"
                            + " only (a designed system trains with train and evaluates with evaluate, without"
                            + " --dry-run, --scripted, --program, rollout.servers or --policy oracle|wrong)");
        }
        return task;
    }

    /**
     * This designed system with the hand-written workflow in {@code file} instead of its designer: a wrong file, or a
     * config that is no designed system, is one line naming it.
     */
    RunSetup withWorkflow(Path file) {
        if (!(source instanceof DesignedSystem system)) {
            throw new ConfigException("--workflow " + file + ": a workflow runs on a designed system (task.name one of "
                    + DesignedSystem.names() + "), and " + config.task().name() + " is a task's team");
        }
        String text;
        try {
            text = Files.readString(file);
        } catch (java.io.IOException e) {
            throw new ConfigException("--workflow " + file + ": cannot read it (" + e.getMessage() + ")");
        }
        return new RunSetup(config, null, system.withWorkflow(text, "--workflow " + file), policies);
    }

    /** This designed system with a random valid design for each problem instead of its designer's. */
    RunSetup withRandomDesigns() {
        if (!(source instanceof DesignedSystem system)) {
            throw new ConfigException("--random-designs: random designs run on a designed system (task.name one of "
                    + DesignedSystem.names() + "), and " + config.task().name() + " is a task's team");
        }
        return new RunSetup(config, null, system.withRandomDesigns(), policies);
    }

    /** Whether the run is a designed system rather than a task's team. */
    boolean designed() {
        return task == null;
    }

    /**
     * Loads a run's config with its overrides, then makes its names local: a {@code policy.model} relative to the
     * installation (PETTINGLLMS_HOME), a Hub id in {@code policy.model} and {@code hf://} files in
     * {@code task.options} ({@link HubResolver}). {@code env} is the environment those are read from.
     */
    static RunSetup load(Path configFile, List<String> overrides, Map<String, String> env) {
        return load(configFile, overrides, env, HubResolver.ModelFiles.ALL);
    }

    /** As above, fetching only what {@code need} says of a Hub model (scripted policies need none of it). */
    static RunSetup load(
            Path configFile, List<String> overrides, Map<String, String> env, HubResolver.ModelFiles need) {
        RunConfig cfg = ConfigLoader.load(configFile, overrides);
        String model = cfg.policy().model();
        Path home = home(env);
        List<String> local = new ArrayList<>(overrides);
        if (!model.startsWith("fresh:")
                && !Path.of(model).isAbsolute()
                && !Files.exists(Path.of(model))
                && Files.isDirectory(home.resolve(model))) {
            // configs name the shipped models relative to the installation, wherever the command runs from
            local.add("policy.model=" + home.resolve(model));
            cfg = ConfigLoader.load(configFile, local);
        }
        List<String> hub = new HubResolver(env).overrides(cfg, need);
        if (!hub.isEmpty()) {
            local.addAll(hub);
            cfg = ConfigLoader.load(configFile, local);
        }
        if (Smoke.on(env)) {
            local.addAll(Smoke.caps(cfg));
            cfg = ConfigLoader.load(configFile, local);
        }
        LearnerBackends.of(cfg); // an unknown learner.kind or a key its backend needs: before anything loads
        Task<?> task = null;
        RolloutSource source;
        if (DesignedSystem.has(cfg.task().name())) {
            source = DesignedSystem.create(cfg.task());
        } else {
            task = Tasks.create(cfg.task());
            source = RolloutSource.of(task);
        }
        for (String r : cfg.policy().untrainedRoles()) {
            if (!source.roles().contains(r)) {
                throw new ConfigException("config key 'policy.untrainedRoles': '" + r + "' is not a role of "
                        + source.id() + "; roles are " + source.roles());
            }
        }
        PolicyMap policies = PolicyMap.forLevel(
                cfg.policy().level(),
                source.roles(),
                cfg.policy().model(),
                new HashSet<>(cfg.policy().untrainedRoles()));
        return new RunSetup(cfg, task, source, policies);
    }

    /** The problems an evaluation runs on: {@code validation.problems} of {@code split} from {@code validation.firstProblem}. */
    List<Problem> problems(Split split) {
        return source.problems(config.run().seed())
                .problems(
                        split,
                        config.validation().firstProblem(),
                        config.validation().problems());
    }

    /** Rollouts of {@code policies} on the problems of {@code split} with the validation settings, as the trainer validates. */
    RolloutStats validate(Sampler sampler, PolicyMap roles, RolloutProgress progress, Split split) {
        return validate(sampler, roles, progress, split, new java.util.HashMap<>());
    }

    /** As above; what the rollouts counted (a designed system's success and designs by kind) goes to {@code metrics}. */
    RolloutStats validate(
            Sampler sampler, PolicyMap roles, RolloutProgress progress, Split split, Map<String, Double> metrics) {
        var rollouts = source.rollouts(sampler, progress);
        var result = rollouts.run(problems(split), roles, config.validationRollout(1));
        metrics.putAll(rollouts.drainMetrics());
        return RolloutStats.of(result, source.roles());
    }

    /**
     * The first role's opening prompt on the first validation problem: text in the task's own form, for checks such
     * as the probe of a server's weights.
     */
    Prompt firstPrompt() {
        Task<?> task = task();
        List<Problem> first = task.problems(config.run().seed()).problems(Split.VALIDATION, 0, 1);
        if (first.isEmpty()) {
            throw new ConfigException("config key 'task': " + task.id() + " has no validation problems");
        }
        return openingPrompt(
                task, first.get(0), task.roles().get(0), config.task().style());
    }

    /** A role's prompt at the first turn of a problem. */
    static <S> Prompt openingPrompt(Task<S> task, Problem problem, String role, PromptStyle style) {
        return task.prompt(task.initialState(problem), role, 0, style);
    }

    /**
     * The installation: PETTINGLLMS_HOME (which the launcher sets), else the property the build sets for tests run
     * from module folders, else the working directory.
     */
    static Path home(Map<String, String> env) {
        String home = env.getOrDefault("PETTINGLLMS_HOME", System.getProperty("pettingllms.home"));
        return home == null ? Path.of(".") : Path.of(home);
    }

    /** The default config: plan-path at L2, from the installation's configs folder. */
    static Path defaultConfig(Map<String, String> env) {
        Path p = home(env).resolve("configs/plan-path/L2.yaml");
        if (!Files.exists(p)) {
            throw new ConfigException("no config given and the default " + p + " does not exist; pass a config file");
        }
        return p;
    }
}
