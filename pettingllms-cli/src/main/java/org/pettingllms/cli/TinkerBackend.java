package org.pettingllms.cli;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.tinker.TinkerClient;
import org.pettingllms.tinker.TinkerLearner;
import org.pettingllms.tinker.TinkerSampler;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * {@code learner.kind: tinker}: updates and rollouts on a Tinker training API at {@code learner.url}. The local
 * engine only tokenises (the model's own tokenizer and chat template). The key comes from {@code TINKER_API_KEY}; a
 * server on this machine needs none.
 */
record TinkerBackend(TinkerLearner learner, TinkerSampler sampler) implements AutoCloseable {
    static TinkerBackend of(RunConfig cfg, EmbeddedEngine engine, Map<String, String> env) {
        RunConfig.LearnerSpec l = cfg.learner();
        URI url;
        try {
            url = URI.create(l.url());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config key 'learner.url': not a URL: '" + l.url() + "'");
        }
        if (url.getHost() == null
                || !(url.getScheme().equals("http") || url.getScheme().equals("https"))) {
            throw new ConfigException(
                    "config key 'learner.url': expected http(s)://host[:port][/path], got '" + l.url() + "'");
        }
        if (!cfg.rollout().servers().isEmpty()) {
            throw new ConfigException("learner.kind tinker samples through the service: leave rollout.servers empty");
        }
        String key = env.get("TINKER_API_KEY");
        if (key == null || key.isBlank()) {
            boolean local = url.getHost().equals("127.0.0.1") || url.getHost().equals("localhost");
            if (!local) {
                throw new ConfigException("learner.kind tinker at " + url + ": set TINKER_API_KEY");
            }
            key = "local";
        }
        String model = cfg.policy().model();
        // a Hub id's cache folder is named by its revision: the id itself (rollout.servedModel) names it at a service
        String base = !l.baseModel().isBlank()
                ? l.baseModel()
                : !cfg.rollout().servedModel().isBlank()
                        ? cfg.rollout().servedModel()
                        : Files.isDirectory(Path.of(model))
                                ? Path.of(model).getFileName().toString()
                                : model;
        TinkerClient client =
                new TinkerClient(new TinkerClient.Settings(url, key, Duration.ofSeconds(l.timeoutSeconds())));
        TinkerLearner learner = new TinkerLearner(
                client,
                new TinkerLearner.Settings(
                        base, cfg.engine().loraRank(), cfg.run().seed()));
        return new TinkerBackend(learner, new TinkerSampler(client, learner, p -> engine.codec(p.model())));
    }

    @Override
    public void close() {
        learner.close();
    }
}
