package org.pettingllms.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.openai.OpenAiSampler;
import org.pettingllms.openai.Protocol;
import org.pettingllms.openai.ServedWeights;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Rollouts on inference servers ({@code rollout.servers}): the remote sampler, and the embedded learner wrapped
 * so that each published adapter version is written to {@code publishDir}, loaded on every server and
 * checked by the probe. The servers must be able to read that directory (a shared file system).
 */
record Remote(OpenAiSampler sampler, Learner learner) {
    /** @param probe the probe's prompt ids: a prompt of the run's task, tokenised by the model's own tokenizer */
    static Remote of(RunConfig cfg, EmbeddedEngine engine, Path publishDir, int[] probe) {
        RunConfig.Rollout r = cfg.rollout();
        String model = cfg.policy().model();
        OpenAiSampler sampler = new OpenAiSampler(
                new OpenAiSampler.Options(
                        r.servers().stream().map(URI::create).toList(),
                        Protocol.valueOf(r.protocol().toUpperCase(Locale.ROOT)),
                        r.servedModel().isEmpty() ? model : r.servedModel(),
                        r.concurrency(),
                        Duration.ofSeconds(r.timeoutSeconds()),
                        2 * r.servers().size() + 2),
                engine::codec);
        return new Remote(sampler, new ServedWeights(engine.learner(), sampler, publishDir, probe, r.probeTolerance()));
    }
}
