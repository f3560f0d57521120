package org.pettingllms.torch.toyfamily;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.FamilyParts;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;
import org.pettingllms.torch.model.PositionScheme;
import org.pettingllms.torch.model.RandomWeights;

/**
 * A model family added from outside the engine: this package plus one line in this module's test
 * {@code META-INF/services/org.pettingllms.torch.model.ModelFamily}. Its decoder is Llama's with a position scheme of
 * its own (every position halved, which is what Llama's linear rope scaling of factor 2 computes), and it makes one
 * fresh preset.
 */
public final class ToyFamily implements ModelFamily {
    public static final String TYPE = "toy-halfpos";
    public static final String PRESET = "toy-tiny";

    /** Positions at half speed: angle = inv_freq x position / 2. */
    static final PositionScheme HALVED = (positions, tokens) ->
            positions.toType(DataType.FLOAT32, false).mul(0.5f).reshape(1, tokens);

    @Override
    public Set<String> modelTypes() {
        return Set.of(TYPE);
    }

    @Override
    public ModelConfig decoderConfig(JsonNode config, String source) {
        ObjectNode asLlama = config.deepCopy();
        asLlama.put("model_type", "llama");
        return ModelConfig.fromJson(asLlama, source).toBuilder()
                .modelType(TYPE)
                .architecture("ToyForCausalLM")
                .build();
    }

    @Override
    public LanguageModel load(ModelFiles files, Device device, DataType dataType) {
        return decoder(decoderConfig(files.config(), files.source()), files.weights(), device, dataType);
    }

    @Override
    public Set<String> presets() {
        return Set.of(PRESET);
    }

    @Override
    public LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        ModelConfig cfg = ModelConfig.builder("llama")
                .modelType(TYPE)
                .architecture("ToyForCausalLM")
                .vocabSize(64)
                .widths(32, 48)
                .layers(2, 4, 2, 8)
                .maxPositionEmbeddings(128)
                .tokens(1, 2)
                .build();
        return decoder(cfg, RandomWeights.decoder(cfg, new SplittableRandom(seed)), device, dataType);
    }

    private static LanguageModel decoder(
            ModelConfig cfg, Map<String, Tensor> weights, Device device, DataType dataType) {
        NDManager scope = Torch.engine().newBaseManager(device);
        try {
            DecoderModel m =
                    DecoderModel.fromTensors(cfg, weights, scope, dataType, new FamilyParts(HALVED, null, null));
            return () -> m;
        } catch (RuntimeException e) {
            scope.close();
            throw e;
        }
    }
}
