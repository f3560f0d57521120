package org.pettingllms.torch.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Presets;
import org.pettingllms.text.CharCodec;
import org.pettingllms.text.HfTokenizerCodec;
import org.pettingllms.text.TextCodec;

/**
 * The embedded engine of a run: models loaded for the run's policies (one per distinct model; L3 gets one copy
 * per role), their codecs, the shared registry, the sampler and the learner. {@code policy.model} is a Hugging
 * Face model directory, or {@code fresh:<preset>} for a new model made from a seed.
 */
public final class EmbeddedEngine implements AutoCloseable {
    private final PolicyRegistry registry;
    private final TorchSampler sampler;
    private final TorchLearner learner;
    private final Map<String, TextCodec> codecs;

    private EmbeddedEngine(PolicyRegistry registry, Map<String, TextCodec> codecs, RunConfig cfg) {
        this.registry = registry;
        this.codecs = codecs;
        this.sampler = new TorchSampler(registry, this::codec, cfg.engine().maxBatchRows(), 2000,
                cfg.engine().samplerThreads());
        RunConfig.Train t = cfg.train();
        this.learner = new TorchLearner(registry, new TrainSettings(t.microBatchSize(), t.klCoef() > 0));
    }

    public static EmbeddedEngine open(RunConfig cfg, PolicyMap policies) throws IOException {
        var device = Torch.device(cfg.engine().device());
        String source = cfg.policy().model();
        Map<String, DecoderModel> models = new LinkedHashMap<>();
        Map<String, TextCodec> codecs = new LinkedHashMap<>();
        Set<String> names = new java.util.LinkedHashSet<>();
        policies.byRole().values().stream().map(PolicyRef::model).sorted().forEach(names::add);
        for (String name : names) {
            if (source.startsWith("fresh:")) {
                String preset = source.substring("fresh:".length());
                models.put(name, DecoderModel.random(Presets.of(preset), cfg.run().seed(), device));
                codecs.put(name, new CharCodec());
            } else {
                Path dir = Path.of(source);
                if (!Files.isDirectory(dir)) {
                    throw new ConfigException("config key 'policy.model': '" + source + "' is neither a model "
                            + "directory nor fresh:<preset> (presets: tiny, 2m, 20m)");
                }
                DecoderModel m = DecoderModel.load(dir, device);
                models.put(name, m);
                // the character codec's own tokenizer.json (for other tools) is read by the codec itself
                codecs.put(name, Files.exists(dir.resolve("tokenizer.json")) && !CharCodec.describes(dir)
                        ? HfTokenizerCodec.load(dir, m.config().eosTokenId()) : new CharCodec());
            }
        }
        RunConfig.Engine e = cfg.engine();
        PolicyRegistry reg = new PolicyRegistry(models, new LoraSettings(e.loraRank(), e.loraAlpha(), e.loraTargets()),
                cfg.run().seed());
        return new EmbeddedEngine(reg, codecs, cfg);
    }

    public TextCodec codec(String model) {
        TextCodec c = codecs.get(model);
        if (c == null) {
            throw new IllegalArgumentException("no codec for model '" + model + "'");
        }
        return c;
    }

    public TorchSampler sampler() {
        return sampler;
    }

    public TorchLearner learner() {
        return learner;
    }

    public PolicyRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        sampler.close();
        learner.close();
        codecs.values().forEach(c -> {
            if (c instanceof AutoCloseable a) {
                try {
                    a.close();
                } catch (Exception ignored) {
                    // closing a tokenizer cannot fail in a way the run could act on
                }
            }
        });
        registry.close();
    }
}
