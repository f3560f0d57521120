package org.pettingllms.torch.engine;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.text.TextCodec;
import org.pettingllms.text.TextCodecs;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LanguageModel;

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

    /**
     * What an engine is opened with.
     *
     * @param model  a Hugging Face model directory, or {@code fresh:<preset>} for a new model made from the seed
     * @param engine device, batch rows, the sampler's threads, LoRA settings (the {@code engine.*} keys)
     * @param seed   seeds fresh weights and each adapter's initialisation ({@code run.seed})
     * @param train  how the learner computes gradients
     */
    public record Settings(String model, RunConfig.Engine engine, long seed, TrainSettings train) {
        /** A run's settings. */
        public static Settings of(RunConfig cfg) {
            return new Settings(
                    cfg.policy().model(),
                    cfg.engine(),
                    cfg.run().seed(),
                    new TrainSettings(
                            cfg.train().microBatchSize(),
                            cfg.train().klCoef() > 0,
                            true,
                            cfg.engine().trainVisionTower(),
                            cfg.engine().learnerThreads()));
        }

        /** One model served on a device, every other setting as the defaults give it. */
        public static Settings serving(String model, String device) {
            RunConfig.Engine engine = ConfigLoader.defaultSection("engine", RunConfig.Engine.class)
                    .onDevice(device);
            RunConfig.Run run = ConfigLoader.defaultSection("run", RunConfig.Run.class);
            RunConfig.Train train = ConfigLoader.defaultSection("train", RunConfig.Train.class);
            return new Settings(model, engine, run.seed(), new TrainSettings(train.microBatchSize(), false));
        }
    }

    private EmbeddedEngine(PolicyRegistry registry, Map<String, TextCodec> codecs, Settings settings) {
        this.registry = registry;
        this.codecs = codecs;
        this.sampler = new TorchSampler(
                registry,
                this::codec,
                settings.engine().maxBatchRows(),
                2000,
                settings.engine().samplerThreads());
        this.learner = new TorchLearner(registry, settings.train());
    }

    /** The engine of a run: its model for the run's policies. */
    public static EmbeddedEngine open(RunConfig cfg, PolicyMap policies) throws IOException {
        return open(Settings.of(cfg), policies, null);
    }

    /**
     * As {@link #open(RunConfig, PolicyMap)}, with the codec of {@code policy.model} already read ({@link #codecOf}),
     * so that its tokenizer is not read again; null: read it here.
     */
    public static EmbeddedEngine open(RunConfig cfg, PolicyMap policies, TextCodec codec) throws IOException {
        return open(Settings.of(cfg), policies, codec);
    }

    /**
     * The engine of a server for one model directory or Hub id: its base weights as the one policy {@code model};
     * adapters and training clients are added by name as requests ask.
     */
    public static EmbeddedEngine forServing(String model, String device) throws IOException {
        return open(Settings.serving(model, device), PolicyMap.forLevel(Level.L1, List.of("model"), model, Set.of()));
    }

    /** An engine with the models the policies name, each loaded from {@code settings.model()}. */
    public static EmbeddedEngine open(Settings settings, PolicyMap policies) throws IOException {
        return open(settings, policies, null);
    }

    /** As above; every model loads from one source, so its codec is read once ({@code known}, or here). */
    private static EmbeddedEngine open(Settings settings, PolicyMap policies, TextCodec known) throws IOException {
        RunConfig.Engine e = settings.engine();
        Device device = underKey("engine.device", () -> Torch.device(e.device()));
        DataType dtype = underKey("engine.dtype", () -> Torch.dataType(e.dtype()));
        String source = settings.model();
        Map<String, DecoderModel> models = new LinkedHashMap<>();
        Map<String, TextCodec> codecs = new LinkedHashMap<>();
        TextCodec codec = known;
        Set<String> names = new LinkedHashSet<>();
        policies.byRole().values().stream().map(PolicyRef::model).sorted().forEach(names::add);
        for (String name : names) {
            if (source.startsWith("fresh:")) {
                String preset = source.substring("fresh:".length());
                LanguageModel fresh =
                        underKey("policy.model", () -> ModelFamilies.fresh(preset, settings.seed(), device, dtype));
                models.put(name, fresh.decoder());
            } else {
                Path dir = Path.of(source);
                if (!Files.isDirectory(dir)) {
                    throw notAModel(source);
                }
                // a vision-language model's decoder carries its family's image input and writer (InputEncoder,
                // ModelWriter): the sampler, the learner and checkpoints reach them through it
                DecoderModel m = ModelFamilies.load(dir, device, dtype).decoder();
                models.put(name, m);
            }
            if (codec == null) {
                codec = codecOf(source);
            }
            codecs.put(name, codec);
        }
        if (settings.train().trainVisionTower()) {
            checkTowerTrains(models, policies);
        }
        PolicyRegistry reg = new PolicyRegistry(
                models, new LoraSettings(e.loraRank(), e.loraAlpha(), e.loraTargets()), settings.seed());
        return new EmbeddedEngine(reg, codecs, settings);
    }

    /**
     * engine.trainVisionTower needs a tower to train and policies that train the whole model: a LoRA adapter adapts
     * the language model's layers only, so with one the setting would silently do nothing.
     */
    private static void checkTowerTrains(Map<String, DecoderModel> models, PolicyMap policies) {
        for (Map.Entry<String, DecoderModel> m : models.entrySet()) {
            var encoder = m.getValue().inputEncoder();
            if (encoder == null || encoder.parameters().isEmpty()) {
                throw new ConfigException("config key 'engine.trainVisionTower': the model of policy '" + m.getKey()
                        + "' has no vision tower (a text model)");
            }
        }
        new java.util.TreeMap<>(policies.byRole()).forEach((role, ref) -> { // the first role by name: one line
            if (ref.adapter() != null) {
                throw new ConfigException("config key 'engine.trainVisionTower': role '" + role + "' trains LoRA "
                        + "adapter '" + ref.adapter() + "', which changes the language model only; the tower trains "
                        + "with full fine-tuning (policy.level L1 or L3)");
            }
        });
    }

    /** {@code read}'s value; its refusal of the setting as one line naming the config key. */
    private static <T> T underKey(String key, Supplier<T> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("config key '" + key + "': " + ex.getMessage());
        }
    }

    /**
     * The codec of {@code policy.model} (a model directory or {@code fresh:<preset>}) from its tokenizer and config
     * alone, without loading a weight: what {@link #codec} gives for every model the engine loads from it.
     */
    public static TextCodec codecOf(String source) throws IOException {
        if (source.startsWith("fresh:")) {
            String preset = source.substring("fresh:".length());
            return TextCodecs.fresh(underKey("policy.model", () -> ModelFamilies.freshSeesImages(preset)));
        }
        Path dir = Path.of(source);
        if (!Files.isDirectory(dir)) {
            throw notAModel(source);
        }
        return TextCodecs.of(dir, ModelFamilies.decoderConfig(dir).eosTokenId());
    }

    private static ConfigException notAModel(String source) {
        return new ConfigException("config key 'policy.model': '" + source + "' is neither a model "
                + "directory nor fresh:<preset> (presets: " + ModelFamilies.presetNames() + ")");
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
