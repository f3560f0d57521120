package org.pettingllms.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.train.Checkpoints;
import org.pettingllms.text.backend.LearnerBackend;
import org.pettingllms.text.backend.LearnerBackends;

/**
 * Where a command's rollouts and updates run, chosen the same way for {@code train}, {@code evaluate},
 * {@code rollout} and {@code table}: {@code learner.kind}'s backend by service lookup ({@link LearnerBackends}: the
 * embedded engine, a Tinker service), and, for a backend whose weights are this process's, {@code rollout.servers}:
 * rollouts on those inference servers, each published version loaded there ({@link Remote}). A key one command
 * honours, every command honours.
 *
 * @param weightsAtService whether the trained weights live at a service ({@link LearnerBackend.Opened})
 * @param publishes        whether the sampler reads only published weights (a service, inference servers): a
 *                         command that loads weights (a checkpoint) publishes them before it samples
 * @param description      one line for the command's output, empty for the embedded engine alone
 */
record Backend(
        Sampler sampler,
        Learner learner,
        boolean weightsAtService,
        boolean publishes,
        String description,
        AutoCloseable onClose)
        implements AutoCloseable {

    /**
     * Adapters for inference servers are written to the run's {@code published} directory ({@code
     * run.outputDir/run.name/published}, which the servers must be able to read).
     *
     * @param probe a prompt of the run's task, the servers' load check ({@link Remote}), asked for only then
     */
    static Backend open(RunConfig cfg, LocalEngine engine, Supplier<Prompt> probe, Map<String, String> env) {
        // the model's tokenizer and config read now, whichever backend opens: a wrong policy.model is one line before
        // anything starts, as when every command loaded the engine first
        engine.codec(cfg.policy().model());
        LearnerBackend.Opened opened = LearnerBackends.of(cfg)
                .open(new LearnerBackend.Local(
                        cfg,
                        () -> engine.get().sampler(),
                        () -> engine.get().learner(),
                        p -> engine.codec(p.model()),
                        env));
        if (!opened.description().isEmpty()) {
            return new Backend(
                    opened.sampler(), opened.learner(), opened.weightsAtService(), true, opened.description(), opened);
        }
        if (cfg.rollout().servers().isEmpty()) {
            return new Backend(opened.sampler(), opened.learner(), false, false, "", opened);
        }
        Path publishDir =
                Path.of(cfg.run().outputDir()).resolve(cfg.run().name()).resolve("published");
        Remote remote = Remote.of(
                cfg,
                engine.get(),
                publishDir,
                engine.codec(cfg.policy().model()).encodePrompt(probe.get()));
        String line = String.format(
                "rollouts on %s (%s protocol); adapters published to %s",
                cfg.rollout().servers(), cfg.rollout().protocol(), publishDir);
        return new Backend(remote.sampler(), remote.learner(), false, true, line, () -> {
            try (opened) {
                remote.sampler().close();
            }
        });
    }

    /**
     * Loads a run's checkpoint ({@code runs/<run>/checkpoints[/step-N]}, or none when null) where this backend keeps
     * the weights (the local engine, or the service the checkpoint names), then publishes every trained policy when
     * the sampler reads only published weights; returns what was loaded, for the command's output ("" for none).
     */
    String load(LocalEngine engine, RunSetup setup, Path checkpoint) throws java.io.IOException {
        String loaded = "";
        if (checkpoint != null) {
            if (weightsAtService) {
                for (Map.Entry<org.pettingllms.core.data.PolicyRef, Path> f :
                        Checkpoints.find(checkpoint, setup.policies()).entrySet()) {
                    learner.load(f.getKey(), f.getValue());
                }
                loaded = "loaded " + checkpoint + " at the service";
            } else {
                loaded = CheckpointLoader.load(engine.get(), setup, checkpoint);
            }
        }
        if (publishes) {
            setup.policies().trainedPolicies().forEach(learner::publish);
        }
        return loaded;
    }

    @Override
    public void close() throws Exception {
        onClose.close();
    }
}
