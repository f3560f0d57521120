package org.pettingllms.torch.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The decoder hyper-parameters of a Hugging Face {@code config.json}, for the architectures {@code llama},
 * {@code qwen2} (bias on q/k/v) and {@code qwen3} (RMSNorm on q and k per head), and the text decoder of
 * {@code qwen2_5_vl} (a qwen2 decoder whose rotary angles take three position axes, {@link #mropeSection}).
 *
 * @param mropeSection M-RoPE: how many of the head's {@code head_dim / 2} rotary frequencies follow the temporal,
 *     height and width position (Qwen2.5-VL's {@code mrope_section}, e.g. [16, 24, 24]); empty for one position
 *     per token
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
        int eosTokenId,
        List<Integer> mropeSection,
        RopeScaling ropeScaling) {
    public static final Set<String> SUPPORTED = Set.of("llama", "qwen2", "qwen3", "qwen2_5_vl");

    /** A text decoder with one position per token. */
    public ModelConfig(
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
        this(
                modelType,
                vocabSize,
                hiddenSize,
                intermediateSize,
                numLayers,
                numHeads,
                numKvHeads,
                headDim,
                rmsNormEps,
                ropeTheta,
                tieWordEmbeddings,
                attentionBias,
                maxPositionEmbeddings,
                bosTokenId,
                eosTokenId,
                List.of());
    }

    /** Rotary frequencies unscaled. */
    public ModelConfig(
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
            int eosTokenId,
            List<Integer> mropeSection) {
        this(
                modelType,
                vocabSize,
                hiddenSize,
                intermediateSize,
                numLayers,
                numHeads,
                numKvHeads,
                headDim,
                rmsNormEps,
                ropeTheta,
                tieWordEmbeddings,
                attentionBias,
                maxPositionEmbeddings,
                bosTokenId,
                eosTokenId,
                mropeSection,
                RopeScaling.NONE);
    }

    public ModelConfig {
        mropeSection = List.copyOf(mropeSection);
        java.util.Objects.requireNonNull(ropeScaling, "ropeScaling");
        if (!mropeSection.isEmpty()
                && (mropeSection.size() != 3
                        || mropeSection.stream().mapToInt(Integer::intValue).sum() != headDim / 2)) {
            throw new IllegalArgumentException("mrope_section " + mropeSection
                    + " must be three counts that add up to head_dim / 2 = " + headDim / 2);
        }
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

    /** q/k/v projections carry a bias: always for qwen2 and Qwen2.5-VL's decoder, by {@code attention_bias} otherwise. */
    public boolean qkvBias() {
        return modelType.equals("qwen2") || modelType.equals("qwen2_5_vl") || attentionBias;
    }

    /** This config with M-RoPE sections (a vision-language model's decoder). */
    public ModelConfig withMropeSection(List<Integer> sections) {
        return new ModelConfig(
                modelType,
                vocabSize,
                hiddenSize,
                intermediateSize,
                numLayers,
                numHeads,
                numKvHeads,
                headDim,
                rmsNormEps,
                ropeTheta,
                tieWordEmbeddings,
                attentionBias,
                maxPositionEmbeddings,
                bosTokenId,
                eosTokenId,
                sections,
                ropeScaling);
    }

    /** Whether rotary angles take three position axes (M-RoPE) rather than one. */
    public boolean mrope() {
        return !mropeSection.isEmpty();
    }

    public int groups() {
        return numHeads / numKvHeads;
    }

    public static ModelConfig read(Path dir) throws IOException {
        Path file = dir.resolve("config.json");
        if (!Files.exists(file)) {
            throw new IOException(dir + ": no config.json (expected a Hugging Face model directory)");
        }
        JsonNode j = new ObjectMapper().readTree(file.toFile());
        if (j.path("model_type").asText().equals("qwen2_5_vl")) {
            throw new IllegalArgumentException(
                    file + ": model_type 'qwen2_5_vl' is a vision-language model, read by its"
                            + " family (org.pettingllms.torch.family.ModelFamilies), not as a text decoder");
        }
        return fromJson(j, file.toString());
    }

    /**
     * The fields of a decoder's config object ({@code source} names it in messages). A key that would change the
     * numbers in a way this engine does not implement is refused by name ({@link #refuseUnsupported}), never
     * ignored; {@code rope_theta} is read from {@code rope_parameters} where transformers 5.x keeps it.
     */
    public static ModelConfig fromJson(JsonNode j, String source) {
        try {
            int hidden = req(j, "hidden_size", source).asInt();
            int heads = req(j, "num_attention_heads", source).asInt();
            String type = req(j, "model_type", source).asText();
            refuseUnsupported(j);
            JsonNode theta = j.path("rope_parameters").hasNonNull("rope_theta")
                    ? j.path("rope_parameters").path("rope_theta")
                    : j.path("rope_theta");
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
                    theta.asDouble(10000.0),
                    j.path("tie_word_embeddings").asBoolean(false),
                    j.path("attention_bias").asBoolean(false),
                    j.path("max_position_embeddings").asInt(2048),
                    j.path("bos_token_id").asInt(-1),
                    j.path("eos_token_id").isArray()
                            ? j.path("eos_token_id").path(0).asInt(-1)
                            : j.path("eos_token_id").asInt(-1),
                    List.of(),
                    RopeScaling.read(j));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Config keys that change a decoder's numbers and that this engine does not implement: refused with the key
     * and what it would need, so that no model runs silently as a different one.
     */
    static void refuseUnsupported(JsonNode j) {
        String act = j.path("hidden_act").asText("silu");
        if (!act.equals("silu") && !act.equals("swish")) {
            throw new IllegalArgumentException(
                    "config key 'hidden_act': '" + act + "' is not supported (the gated MLP" + " here is SiLU)");
        }
        if (j.path("mlp_bias").asBoolean(false)) {
            throw new IllegalArgumentException(
                    "config key 'mlp_bias': true is not supported (MLP layers here have no" + " bias)");
        }
        if (j.path("use_sliding_window").asBoolean(false)) {
            throw new IllegalArgumentException("config key 'use_sliding_window': true is not supported (attention here"
                    + " sees the whole context)");
        }
        for (JsonNode layer : j.path("layer_types")) {
            if (!layer.asText().equals("full_attention")) {
                throw new IllegalArgumentException("config key 'layer_types': '" + layer.asText()
                        + "' is not supported (every layer here is full_attention)");
            }
        }
        if (j.has("partial_rotary_factor") && j.path("partial_rotary_factor").asDouble(1.0) != 1.0) {
            throw new IllegalArgumentException("config key 'partial_rotary_factor': " + j.path("partial_rotary_factor")
                    + " is not supported (rotary embeddings here turn the whole head)");
        }
        for (String k : new String[] {"attn_logit_softcapping", "final_logit_softcapping"}) {
            if (j.hasNonNull(k)) {
                throw new IllegalArgumentException("config key '" + k + "' is not supported (no soft-capping here)");
            }
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
            case "qwen2_5_vl" ->
                throw new IllegalStateException(
                        "a Qwen2.5-VL config.json holds its vision tower's settings too: its family writes it");
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
        j.set("rope_scaling", ropeScaling.toJson(new ObjectMapper()));
        return j;
    }
}
