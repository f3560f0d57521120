package org.pettingllms.torch.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * How a config rescales its rotary frequencies ({@code rope_scaling} in transformers 4.x configs,
 * {@code rope_parameters} in 5.x): none, {@code linear} (every frequency divided by {@code factor}, i.e. positions
 * interpolated) or {@code llama3} (Llama 3.1/3.2: long wavelengths divided by {@code factor}, short ones kept, the
 * band between blended). Other kinds ({@code dynamic}, {@code yarn}, {@code longrope}, ...) change the numbers in
 * ways this engine does not implement, so a config that asks for one is refused by name rather than misread.
 *
 * @param type                 {@code default}, {@code linear} or {@code llama3}
 * @param factor               the scaling factor (1 for none)
 * @param lowFreqFactor        llama3's {@code low_freq_factor}
 * @param highFreqFactor       llama3's {@code high_freq_factor}
 * @param originalMaxPositions llama3's {@code original_max_position_embeddings}
 */
public record RopeScaling(
        String type, double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) {
    static final Set<String> SUPPORTED = Set.of("default", "linear", "llama3"); // before NONE, which checks it
    public static final RopeScaling NONE = new RopeScaling("default", 1, 0, 0, 0);

    public RopeScaling {
        if (!SUPPORTED.contains(type)) {
            throw new IllegalArgumentException("rope_type '" + type + "' is not supported; supported: " + SUPPORTED);
        }
        if (!(factor > 0)) {
            throw new IllegalArgumentException("rope scaling factor must be > 0, got " + factor);
        }
        if (type.equals("llama3")
                && !(highFreqFactor > lowFreqFactor && lowFreqFactor > 0 && originalMaxPositions > 0)) {
            throw new IllegalArgumentException("llama3 rope scaling needs high_freq_factor > low_freq_factor > 0 and "
                    + "original_max_position_embeddings > 0");
        }
    }

    /**
     * The scaling a decoder config asks for: {@code rope_parameters} (5.x) or {@code rope_scaling} (4.x); none when
     * both are absent or say {@code default}. Fails naming the key for a kind it does not implement.
     */
    public static RopeScaling read(JsonNode config) {
        String key = config.hasNonNull("rope_parameters") ? "rope_parameters" : "rope_scaling";
        JsonNode r = config.path(key);
        if (r.isMissingNode() || r.isNull()) {
            return NONE;
        }
        String type = r.path("rope_type").asText(r.path("type").asText("default"));
        if (type.equals("mrope")) {
            type = "default"; // Qwen2-VL's 4.x configs name M-RoPE here; its sections are read by the family
        }
        if (!SUPPORTED.contains(type)) {
            throw new IllegalArgumentException("config key '" + key + ".rope_type': '" + type + "' is not supported"
                    + " (it changes the rotary frequencies in a way this engine does not implement); supported: "
                    + "default, linear, llama3");
        }
        if (type.equals("default")) {
            return NONE;
        }
        double factor = r.path("factor").asDouble(Double.NaN);
        if (!(factor > 0)) {
            throw new IllegalArgumentException("config key '" + key + ".factor': expected a number > 0");
        }
        return new RopeScaling(
                type,
                factor,
                r.path("low_freq_factor").asDouble(0),
                r.path("high_freq_factor").asDouble(0),
                r.path("original_max_position_embeddings").asInt(0));
    }

    /**
     * The scaled inverse frequencies. linear: {@code inv / factor}. llama3 (transformers'
     * {@code _compute_llama3_parameters}): with wavelength {@code w = 2 pi / inv}, {@code inv / factor} where
     * {@code w > original / low_freq_factor}, {@code inv} where {@code w < original / high_freq_factor}, and between
     * them {@code (1 - s) inv / factor + s inv} with {@code s = (original / w - low) / (high - low)}.
     */
    public double[] scale(double[] inv) {
        double[] out = inv.clone();
        switch (type) {
            case "linear" -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = inv[i] / factor;
                }
            }
            case "llama3" -> {
                double lowWavelen = originalMaxPositions / lowFreqFactor;
                double highWavelen = originalMaxPositions / highFreqFactor;
                for (int i = 0; i < out.length; i++) {
                    double wavelen = 2 * Math.PI / inv[i];
                    if (wavelen > lowWavelen) {
                        out[i] = inv[i] / factor;
                    } else if (wavelen >= highWavelen) {
                        double s = (originalMaxPositions / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
                        out[i] = (1 - s) * inv[i] / factor + s * inv[i];
                    }
                }
            }
            default -> {}
        }
        return out;
    }

    /** As a 4.x config's {@code rope_scaling} writes it; null for none. */
    ObjectNode toJson(com.fasterxml.jackson.databind.ObjectMapper json) {
        if (type.equals("default")) {
            return null;
        }
        ObjectNode n = json.createObjectNode().put("rope_type", type).put("factor", factor);
        if (type.equals("llama3")) {
            n.put("low_freq_factor", lowFreqFactor)
                    .put("high_freq_factor", highFreqFactor)
                    .put("original_max_position_embeddings", originalMaxPositions);
        }
        return n;
    }
}
