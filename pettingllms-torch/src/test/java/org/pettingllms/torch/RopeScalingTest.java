package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.RopeScaling;

/**
 * Rotary scaling read or refused, never misread: Llama 3.1's llama3 scaling and linear scaling against values
 * computed from the published formulas in Python's double arithmetic (transformers'
 * {@code _compute_llama3_parameters}; theta 500000, head_dim 128, factor 8, low 1, high 4, original context 8192);
 * kinds not implemented and other keys that would change the numbers fail naming the key.
 */
class RopeScalingTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode config(String extra) throws Exception {
        return JSON.readTree("{\"model_type\": \"llama\", \"vocab_size\": 32, \"hidden_size\": 256,"
                + " \"intermediate_size\": 64, \"num_hidden_layers\": 1, \"num_attention_heads\": 2,"
                + " \"rope_theta\": 500000.0" + extra + "}");
    }

    static double[] unscaled() {
        double[] inv = new double[64];
        for (int i = 0; i < inv.length; i++) {
            inv[i] = 1.0 / Math.pow(500000.0, 2.0 * i / 128);
        }
        return inv;
    }

    @Test
    void llama3ScalingKeepsHighFrequenciesDividesLowOnesAndBlendsBetween() throws Exception {
        for (String layout : new String[] {
            ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0,"
                    + " \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}",
            ", \"rope_parameters\": {\"rope_type\": \"llama3\", \"factor\": 8.0, \"low_freq_factor\": 1.0,"
                    + " \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192, \"rope_theta\": 500000.0}"
        }) {
            ModelConfig c = ModelConfig.fromJson(config(layout), "config.json");
            assertThat(c.ropeTheta()).isEqualTo(500000.0);
            double[] got = c.ropeScaling().scale(unscaled());
            double[][] want = { // index, value (Python)
                {0, 1.0},
                {20, 0.016560440080994446},
                {28, 0.0032114459947525913},
                {29, 0.002166570763503359},
                {30, 0.0013718935677611381},
                {34, 0.00017850781276799638},
                {35, 9.556212353964683e-05},
                {63, 3.068925988914511e-07}
            };
            for (double[] w : want) {
                assertThat(got[(int) w[0]]).as("frequency %d", (int) w[0]).isCloseTo(w[1], within(w[1] * 1e-12));
            }
        }
    }

    @Test
    void linearScalingDividesEveryFrequencyAndSavesItself() throws Exception {
        ModelConfig c = ModelConfig.fromJson(
                config(", \"rope_scaling\": {\"type\": \"linear\", \"factor\": 4.0}"), "config.json");
        double[] inv = unscaled();
        double[] got = c.ropeScaling().scale(inv);
        for (int i = 0; i < inv.length; i++) {
            assertThat(got[i]).isEqualTo(inv[i] / 4.0);
        }
        assertThat(ModelConfig.fromJson(c.toJson(), "saved").ropeScaling()).isEqualTo(c.ropeScaling());
        assertThat(ModelConfig.fromJson(config(""), "config.json").ropeScaling())
                .isEqualTo(RopeScaling.NONE);
    }

    @Test
    void whatWouldChangeTheNumbersUnreadIsRefusedByName() throws Exception {
        String[][] refused = {
            {", \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0}", "'rope_scaling.rope_type': 'yarn'"},
            {", \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2.0}", "'rope_scaling.rope_type': 'dynamic'"},
            {", \"rope_parameters\": {\"rope_type\": \"longrope\"}", "'rope_parameters.rope_type': 'longrope'"},
            {", \"rope_scaling\": {\"rope_type\": \"linear\"}", "'rope_scaling.factor'"},
            {", \"hidden_act\": \"gelu\"", "'hidden_act'"},
            {", \"mlp_bias\": true", "'mlp_bias'"},
            {", \"use_sliding_window\": true", "'use_sliding_window'"},
            {", \"layer_types\": [\"full_attention\", \"sliding_attention\"]", "'layer_types'"},
            {", \"partial_rotary_factor\": 0.5", "'partial_rotary_factor'"},
            {", \"final_logit_softcapping\": 30.0", "'final_logit_softcapping'"}
        };
        for (String[] r : refused) {
            assertThatThrownBy(() -> ModelConfig.fromJson(config(r[0]), "config.json"))
                    .as(r[0])
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("config.json: config key " + r[1]);
        }
        // what changes nothing is read as before
        ModelConfig.fromJson(
                config(", \"use_sliding_window\": false, \"layer_types\": [\"full_attention\"], \"hidden_act\":"
                        + " \"silu\", \"rope_scaling\": null"),
                "config.json");
    }
}
