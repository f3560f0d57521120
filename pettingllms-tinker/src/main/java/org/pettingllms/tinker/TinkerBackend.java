package org.pettingllms.tinker;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.text.backend.LearnerBackend;

/**
 * {@code learner.kind: tinker}: updates and rollouts on a Tinker training API at {@code learner.url}. The local
 * engine only tokenises (the model's own tokenizer and chat template). The key comes from {@code TINKER_API_KEY}; a
 * server on this machine needs none.
 */
public final class TinkerBackend implements LearnerBackend {
    @Override
    public String kind() {
        return "tinker";
    }

    @Override
    public void check(RunConfig cfg) {
        url(cfg);
        if (!cfg.rollout().servers().isEmpty()) {
            throw new ConfigException("learner.kind tinker samples through the service: leave rollout.servers empty");
        }
    }

    private static URI url(RunConfig cfg) {
        String u = cfg.learner().url();
        if (u.isBlank()) {
            throw new ConfigException("config key 'learner.url': learner.kind tinker needs the service's base URL");
        }
        URI url;
        try {
            url = URI.create(u);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config key 'learner.url': not a URL: '" + u + "'");
        }
        if (url.getHost() == null
                || url.getScheme() == null
                || !(url.getScheme().equals("http") || url.getScheme().equals("https"))) {
            throw new ConfigException(
                    "config key 'learner.url': expected http(s)://host[:port][/path], got '" + u + "'");
        }
        return url;
    }

    @Override
    public Opened open(Local local) {
        RunConfig cfg = local.config();
        check(cfg);
        URI url = url(cfg);
        String key = local.env().get("TINKER_API_KEY");
        if (key == null || key.isBlank()) {
            boolean here = url.getHost().equals("127.0.0.1") || url.getHost().equals("localhost");
            if (!here) {
                throw new ConfigException("learner.kind tinker at " + url + ": set TINKER_API_KEY");
            }
            key = "local";
        }
        RunConfig.LearnerSpec l = cfg.learner();
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
        return new Opened(
                new TinkerSampler(client, learner, local.codecs()),
                learner,
                true,
                "updates and rollouts on the Tinker service at " + url + " (base model '" + base + "')",
                learner::close);
    }
}
