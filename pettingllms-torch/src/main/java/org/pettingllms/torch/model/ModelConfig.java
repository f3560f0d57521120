package org.pettingllms.torch.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The decoder hyper-parameters of a Hugging Face {@code config.json}, for the architectures {@code llama},
 * {@code qwen2} (bias on q/k/v) and {@code qwen3} (RMSNorm on q and k per head).
 */
public record ModelConfig(
        String modelType,
        int vocabSize,
        int hiddenSize,
        int intermediateSize,
        int numLayers,
        int numHeads,
        int numKvHeads,
        int headDim,
        double rmsNormEps,
        double ropeTheta,
        boolean tieWordEmbeddings,
        boolean attentionBias,
        int maxPositionEmbeddings,
        int bosTokenId,
        int eosTokenId) {
    public static final Set<String> SUPPORTED = Set.of("llama", "qwen2", "qwen3");

    public ModelConfig {
        if (!SUPPORTED.contains(modelType)) {
            throw new IllegalArgumentException(
                    "model_type '" + modelType + "' is not supported; supported: " + SUPPORTED);
        }
        if (numHeads % numKvHeads != 0) {
            throw new IllegalArgumentException("num_attention_heads (" + numHeads
                    + ") must be a multiple of num_key_value_heads (" + numKvHeads + ")");
        }
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException("head_dim must be even for rotary embeddings, got " + headDim);
        }
    }

    public boolean qkNorm() {
        return modelType.equals("qwen3");
    }

    /** q/k/v projections carry a bias: always for qwen2, by {@code attention_bias} otherwise. */
    public boolean qkvBias() {
        return modelType.equals("qwen2") || attentionBias;
    }

    public int groups() {
        return numHeads / numKvHeads;
    }

    public static ModelConfig read(Path dir) throws IOException {
        Path file = dir.resolve("config.json");
        if (!Files.exists(file)) {
            throw new IOException(dir + ": no config.json (expected a Hugging Face model directory)");
        }
        return fromJson(new ObjectMapper().readTree(file.toFile()), file.toString());
    }

    static ModelConfig fromJson(JsonNode j, String source) {
        try {
            int hidden = req(j, "hidden_size", source).asInt();
            int heads = req(j, "num_attention_heads", source).asInt();
            String type = req(j, "model_type", source).asText();
            return new ModelConfig(
                    type,
                    req(j, "vocab_size", source).asInt(),
                    hidden,
                    req(j, "intermediate_size", source).asInt(),
                    req(j, "num_hidden_layers", source).asInt(),
                    heads,
                    j.path("num_key_value_heads").asInt(heads),
                    j.path("head_dim").asInt(hidden / heads),
                    j.path("rms_norm_eps").asDouble(1e-6),
                    j.path("rope_theta").asDouble(10000.0),
                    j.path("tie_word_embeddings").asBoolean(false),
                    j.path("attention_bias").asBoolean(false),
                    j.path("max_position_embeddings").asInt(2048),
                    j.path("bos_token_id").asInt(-1),
                    j.path("eos_token_id").isArray()
                            ? j.path("eos_token_id").path(0).asInt(-1)
                            : j.path("eos_token_id").asInt(-1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode req(JsonNode j, String key, String source) {
        JsonNode n = j.get(key);
        if (n == null || n.isNull()) {
            throw new IllegalArgumentException(source + ": missing field '" + key + "'");
        }
        return n;
    }

    /** The config as Hugging Face writes it, so transformers and vLLM load what we save. */
    public ObjectNode toJson() {
        ObjectNode j = new ObjectMapper().createObjectNode();
        String arch = switch (modelType) {
            case "llama" -> "LlamaForCausalLM";
            case "qwen2" -> "Qwen2ForCausalLM";
            default -> "Qwen3ForCausalLM";
        };
        j.putArray("architectures").add(arch);
        j.put("model_type", modelType)
                .put("vocab_size", vocabSize)
                .put("hidden_size", hiddenSize)
                .put("intermediate_size", intermediateSize)
                .put("num_hidden_layers", numLayers)
                .put("num_attention_heads", numHeads)
                .put("num_key_value_heads", numKvHeads)
                .put("head_dim", headDim)
                .put("hidden_act", "silu")
                .put("max_position_embeddings", maxPositionEmbeddings)
                .put("rms_norm_eps", rmsNormEps)
                .put("rope_theta", ropeTheta)
                .put("tie_word_embeddings", tieWordEmbeddings)
                .put("attention_bias", attentionBias)
                .put("bos_token_id", bosTokenId)
                .put("eos_token_id", eosTokenId)
                .put("torch_dtype", "float32");
        return j;
    }
}
