package org.pettingllms.torch.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The decoder hyper-parameters of a Hugging Face {@code config.json}: what {@link DecoderModel} needs to build a
 * decoder of the Llama shape (RMSNorm, rotary embeddings, grouped-query attention, SwiGLU MLP) and the switches in
 * which the architectures differ ({@link #qkNorm}, {@link #qkvBias}). {@link #fromJson} reads the text families
 * {@code llama}, {@code qwen2} (bias on q/k/v) and {@code qwen3} (RMSNorm on q and k per head); another family reads
 * its own file and builds its decoder's config with {@link #builder} or {@link #toBuilder}, adding what only it has in
 * a config of its own around this one (a vision-language family's M-RoPE sections and vision tower). Built by name
 * ({@link Builder}), never by position.
 *
 * @param modelType     the family's {@code model_type}, for messages and the file written back
 * @param architecture  the {@code architectures} entry written back ({@code Qwen3ForCausalLM}, ...)
 * @param attentionBias the file's {@code attention_bias}, written back as read
 * @param qkNorm        Qwen3's RMSNorm of each q and k head
 * @param qkvBias       q, k and v projections with a bias (Qwen2 always; others by {@code attention_bias})
 */
public record ModelConfig(
        String modelType,
        String architecture,
        int vocabSize,
        int hiddenSize,
        int intermediateSize,
        int numLayers,
        int numHeads,
        int numKvHeads,
        int headDim,
        double rmsNormEps,
        double ropeTheta,
        RopeScaling ropeScaling,
        boolean tieWordEmbeddings,
        boolean attentionBias,
        boolean qkNorm,
        boolean qkvBias,
        int maxPositionEmbeddings,
        int bosTokenId,
        int eosTokenId) {
    /** The text families {@link #fromJson} reads, by {@code model_type}, with the architecture name each writes. */
    static final Map<String, String> TEXT_FAMILIES =
            Map.of("llama", "LlamaForCausalLM", "qwen2", "Qwen2ForCausalLM", "qwen3", "Qwen3ForCausalLM");

    public ModelConfig {
        java.util.Objects.requireNonNull(modelType, "modelType");
        java.util.Objects.requireNonNull(architecture, "architecture");
        java.util.Objects.requireNonNull(ropeScaling, "ropeScaling");
        if (numHeads <= 0 || numKvHeads <= 0 || numHeads % numKvHeads != 0) {
            throw new IllegalArgumentException("num_attention_heads (" + numHeads
                    + ") must be a multiple of num_key_value_heads (" + numKvHeads + ")");
        }
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException("head_dim must be even for rotary embeddings, got " + headDim);
        }
    }

    /**
     * A text decoder of {@code modelType} ({@code llama}, {@code qwen2} or {@code qwen3}) with that family's switches
     * and the defaults of {@link #fromJson}'s missing keys; sizes are set on the builder.
     */
    public static Builder builder(String modelType) {
        String arch = TEXT_FAMILIES.get(modelType);
        if (arch == null) {
            throw new IllegalArgumentException("model_type '" + modelType + "' is not a text family read here;"
                    + " supported: " + new java.util.TreeSet<>(TEXT_FAMILIES.keySet())
                    + " (a family of its own builds with toBuilder())");
        }
        Builder b = new Builder();
        b.modelType = modelType;
        b.architecture = arch;
        b.qkNorm = modelType.equals("qwen3");
        b.qwen2Bias = modelType.equals("qwen2");
        return b;
    }

    /** A builder holding this config's values, for a family that changes some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.modelType = modelType;
        b.architecture = architecture;
        b.vocabSize = vocabSize;
        b.hiddenSize = hiddenSize;
        b.intermediateSize = intermediateSize;
        b.numLayers = numLayers;
        b.numHeads = numHeads;
        b.numKvHeads = numKvHeads;
        b.headDim = headDim;
        b.rmsNormEps = rmsNormEps;
        b.ropeTheta = ropeTheta;
        b.ropeScaling = ropeScaling;
        b.tieWordEmbeddings = tieWordEmbeddings;
        b.attentionBias = attentionBias;
        b.qkNorm = qkNorm;
        b.qkvBias = qkvBias;
        b.maxPositionEmbeddings = maxPositionEmbeddings;
        b.bosTokenId = bosTokenId;
        b.eosTokenId = eosTokenId;
        return b;
    }

    /** Sets a {@link ModelConfig}'s fields by name; unset ones take {@link #fromJson}'s defaults. */
    public static final class Builder {
        private String modelType;
        private String architecture;
        private int vocabSize;
        private int hiddenSize;
        private int intermediateSize;
        private int numLayers;
        private int numHeads;
        private int numKvHeads;
        private int headDim;
        private double rmsNormEps = 1e-6;
        private double ropeTheta = 10000.0;
        private RopeScaling ropeScaling = RopeScaling.NONE;
        private boolean tieWordEmbeddings;
        private boolean attentionBias;
        private boolean qkNorm;
        /** Qwen2's q/k/v bias, which it has whatever {@code attention_bias} says. */
        private boolean qwen2Bias;

        private Boolean qkvBias;
        private int maxPositionEmbeddings = 2048;
        private int bosTokenId = -1;
        private int eosTokenId = -1;

        private Builder() {}

        public Builder modelType(String v) {
            modelType = v;
            return this;
        }

        public Builder architecture(String v) {
            architecture = v;
            return this;
        }

        public Builder vocabSize(int v) {
            vocabSize = v;
            return this;
        }

        /** The residual width and the MLP's inner width. */
        public Builder widths(int hidden, int intermediate) {
            hiddenSize = hidden;
            intermediateSize = intermediate;
            return this;
        }

        /** Layers, query heads, key-value heads and the head size. */
        public Builder layers(int layers, int heads, int kvHeads, int headSize) {
            numLayers = layers;
            numHeads = heads;
            numKvHeads = kvHeads;
            headDim = headSize;
            return this;
        }

        public Builder rmsNormEps(double v) {
            rmsNormEps = v;
            return this;
        }

        public Builder rope(double theta, RopeScaling scaling) {
            ropeTheta = theta;
            ropeScaling = scaling;
            return this;
        }

        public Builder tieWordEmbeddings(boolean v) {
            tieWordEmbeddings = v;
            return this;
        }

        public Builder attentionBias(boolean v) {
            attentionBias = v;
            return this;
        }

        public Builder qkNorm(boolean v) {
            qkNorm = v;
            return this;
        }

        /** Bias on q, k and v whatever {@code attention_bias} says (unset: Qwen2's rule, else attention_bias). */
        public Builder qkvBias(boolean v) {
            qkvBias = v;
            return this;
        }

        public Builder maxPositionEmbeddings(int v) {
            maxPositionEmbeddings = v;
            return this;
        }

        public Builder tokens(int bos, int eos) {
            bosTokenId = bos;
            eosTokenId = eos;
            return this;
        }

        public ModelConfig build() {
            return new ModelConfig(
                    modelType,
                    architecture,
                    vocabSize,
                    hiddenSize,
                    intermediateSize,
                    numLayers,
                    numHeads,
                    numKvHeads,
                    headDim,
                    rmsNormEps,
                    ropeTheta,
                    ropeScaling,
                    tieWordEmbeddings,
                    attentionBias,
                    qkNorm,
                    qkvBias != null ? qkvBias : qwen2Bias || attentionBias,
                    maxPositionEmbeddings,
                    bosTokenId,
                    eosTokenId);
        }
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
            return builder(type)
                    .vocabSize(req(j, "vocab_size", source).asInt())
                    .widths(hidden, req(j, "intermediate_size", source).asInt())
                    .layers(
                            req(j, "num_hidden_layers", source).asInt(),
                            heads,
                            j.path("num_key_value_heads").asInt(heads),
                            j.path("head_dim").asInt(hidden / heads))
                    .rmsNormEps(j.path("rms_norm_eps").asDouble(1e-6))
                    .rope(theta.asDouble(10000.0), RopeScaling.read(j))
                    .tieWordEmbeddings(j.path("tie_word_embeddings").asBoolean(false))
                    .attentionBias(j.path("attention_bias").asBoolean(false))
                    .maxPositionEmbeddings(j.path("max_position_embeddings").asInt(2048))
                    .tokens(
                            j.path("bos_token_id").asInt(-1),
                            j.path("eos_token_id").isArray()
                                    ? j.path("eos_token_id").path(0).asInt(-1)
                                    : j.path("eos_token_id").asInt(-1))
                    .build();
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
        j.putArray("architectures").add(architecture);
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
