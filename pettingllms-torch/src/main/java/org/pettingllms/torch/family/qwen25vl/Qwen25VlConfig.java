package org.pettingllms.torch.family.qwen25vl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.torch.model.ModelConfig;

/**
 * A Qwen2.5-VL {@code config.json} in either layout transformers has written: 4.x keeps the text decoder's fields at
 * the top level with {@code rope_scaling.mrope_section} and {@code rope_theta}; 5.x nests them under
 * {@code text_config} with {@code rope_parameters}. Token ids are at the top level in both.
 *
 * @param text         the language model (a qwen2 decoder, whose rotary angles follow {@code mropeSection})
 * @param mropeSection M-RoPE: how many of the head's {@code head_dim / 2} rotary frequencies follow the temporal,
 *     height and width position ({@code mrope_section}, e.g. [16, 24, 24])
 * @param json         the file as read, written back unchanged when the model is saved
 */
public record Qwen25VlConfig(
        ModelConfig text,
        List<Integer> mropeSection,
        Vision vision,
        int imageTokenId,
        int visionStartTokenId,
        int visionEndTokenId,
        int videoTokenId,
        JsonNode json) {

    /**
     * The vision tower: {@code depth} blocks of width {@code hidden} with {@code heads} heads, patches of
     * {@code patch} pixels over {@code temporalPatch} frames, window attention over {@code window}-pixel windows
     * except in {@code fullAttentionBlocks}, and a merger of {@code merge} x {@code merge} patches into one token of
     * {@code outHidden} (the text model's width).
     */
    public record Vision(
            int depth,
            int hidden,
            int intermediate,
            int heads,
            int patch,
            int temporalPatch,
            int merge,
            int window,
            List<Integer> fullAttentionBlocks,
            int outHidden,
            int inChannels,
            double tokensPerSecond) {
        public Vision {
            fullAttentionBlocks = List.copyOf(fullAttentionBlocks);
            if (hidden % heads != 0 || (hidden / heads) % 4 != 0) {
                throw new IllegalArgumentException("vision hidden_size " + hidden + " over num_heads " + heads
                        + " must give a head size that is a multiple of 4 (2-D rotary embedding)");
            }
            if (inChannels != 3) {
                throw new IllegalArgumentException("vision in_channels must be 3 (RGB), got " + inChannels);
            }
            if (window % (merge * patch) != 0) {
                throw new IllegalArgumentException(
                        "vision window_size " + window + " must be a multiple of patch_size x spatial_merge_size");
            }
        }

        public int headDim() {
            return hidden / heads;
        }

        /** Values per patch: channels x frames x patch x patch. */
        public int patchValues() {
            return inChannels * temporalPatch * patch * patch;
        }
    }

    public Qwen25VlConfig {
        mropeSection = List.copyOf(mropeSection);
        if (mropeSection.size() != 3
                || mropeSection.stream().mapToInt(Integer::intValue).sum() != text.headDim() / 2) {
            throw new IllegalArgumentException("mrope_section " + mropeSection
                    + " must be three counts that add up to head_dim / 2 = " + text.headDim() / 2);
        }
    }

    public static Qwen25VlConfig fromJson(JsonNode j, String source) {
        JsonNode textNode = j.has("text_config") ? j.get("text_config") : j;
        ObjectNode text = textNode.deepCopy();
        text.put("model_type", "qwen2"); // its decoder is Qwen2's (q/k/v bias), named as the family below
        JsonNode rope = firstPresent(textNode, j, "rope_parameters", "rope_scaling");
        if (!text.has("rope_theta") && rope.has("rope_theta")) {
            text.set("rope_theta", rope.get("rope_theta"));
        }
        if (!text.has("tie_word_embeddings") && j.has("tie_word_embeddings")) {
            text.set("tie_word_embeddings", j.get("tie_word_embeddings"));
        }
        JsonNode section = rope.get("mrope_section");
        if (section == null || !section.isArray()) {
            throw new IllegalArgumentException(source
                    + ": missing 'mrope_section' (rope_scaling in 4.x configs, text_config.rope_parameters in 5.x)");
        }
        List<Integer> mrope = new ArrayList<>();
        section.forEach(n -> mrope.add(n.asInt()));
        ModelConfig t = ModelConfig.fromJson(text, source).toBuilder()
                .modelType("qwen2_5_vl")
                .architecture("Qwen2_5_VLForConditionalGeneration")
                .build();
        JsonNode v = j.get("vision_config");
        if (v == null || !v.isObject()) {
            throw new IllegalArgumentException(source + ": missing 'vision_config'");
        }
        List<Integer> full = new ArrayList<>();
        v.path("fullatt_block_indexes").forEach(n -> full.add(n.asInt()));
        String act = v.path("hidden_act").asText("silu");
        if (!act.equals("silu")) {
            throw new IllegalArgumentException(source + ": vision_config.hidden_act '" + act + "' (expected silu)");
        }
        Vision vision;
        try {
            vision = new Vision(
                    req(v, "depth", source),
                    req(v, "hidden_size", source),
                    req(v, "intermediate_size", source),
                    req(v, "num_heads", source),
                    v.path("patch_size").asInt(14),
                    v.path("temporal_patch_size").asInt(2),
                    v.path("spatial_merge_size").asInt(2),
                    v.path("window_size").asInt(112),
                    full,
                    v.path("out_hidden_size").asInt(t.hiddenSize()),
                    v.path("in_channels").asInt(v.path("in_chans").asInt(3)),
                    v.path("tokens_per_second").asDouble(2));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
        if (vision.outHidden() != t.hiddenSize()) {
            throw new IllegalArgumentException(source + ": vision_config.out_hidden_size " + vision.outHidden()
                    + " must equal the text model's hidden_size " + t.hiddenSize());
        }
        Qwen25VlConfig config;
        try {
            config = new Qwen25VlConfig(
                    t,
                    mrope,
                    vision,
                    j.path("image_token_id").asInt(151_655),
                    j.path("vision_start_token_id").asInt(151_652),
                    j.path("vision_end_token_id").asInt(151_653),
                    j.path("video_token_id").asInt(151_656),
                    j);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
        return config;
    }

    /** The first of {@code keys} present in {@code primary}, then in {@code fallback}; an empty node if none. */
    private static JsonNode firstPresent(JsonNode primary, JsonNode fallback, String... keys) {
        for (JsonNode node : List.of(primary, fallback)) {
            for (String k : keys) {
                if (node.hasNonNull(k)) {
                    return node.get(k);
                }
            }
        }
        return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }

    private static int req(JsonNode v, String key, String source) {
        JsonNode n = v.get(key);
        if (n == null || !n.canConvertToInt()) {
            throw new IllegalArgumentException(source + ": vision_config lacks an integer '" + key + "'");
        }
        return n.asInt();
    }
}
