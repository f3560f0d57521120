package org.pettingllms.torch.toyfamily;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.LanguageModel;

/**
 * A family added in its own package ({@link ToyFamily} and a services line) is found by {@code model_type} and by
 * preset, loads, saves and reloads, and its position scheme is the one the decoder uses: with no change anywhere else.
 */
class NewFamilyTest {
    private static float[] logits(DecoderModel m) {
        try (NDManager s = m.manager().newSubManager()) {
            Inputs.Batch in = Inputs.leftPadded(s, List.of(new int[] {1, 5, 9, 3, 7, 11, 2}), 0);
            return m.forward(in.ids(), in.positions(), in.bias(), null, null).toFloatArray();
        }
    }

    @Test
    void aFamilyInItsOwnPackageIsFoundMadeSavedAndReloaded(@TempDir Path dir) throws Exception {
        assertThat(ModelFamilies.presetNames())
                .contains(ToyFamily.PRESET)
                .contains("tiny")
                .contains("vl-tiny");
        assertThat(ModelFamilies.freshSeesImages(ToyFamily.PRESET)).isFalse();
        try (LanguageModel fresh = ModelFamilies.fresh(ToyFamily.PRESET, 3, Device.cpu(), DataType.FLOAT32)) {
            fresh.decoder().save(dir);
            assertThat(Files.readString(dir.resolve("config.json"))).contains("\"model_type\" : \"toy-halfpos\"");
            assertThat(ModelFamilies.family(ModelFamilies.config(dir), "config.json"))
                    .isInstanceOf(ToyFamily.class);
            try (LanguageModel back = ModelFamilies.load(dir, Device.cpu(), DataType.FLOAT32)) {
                assertThat(back.decoder().config().modelType()).isEqualTo(ToyFamily.TYPE);
                assertThat(logits(back.decoder())).containsExactly(logits(fresh.decoder()));
            }
        }
        ObjectNode unknown = new ObjectMapper().createObjectNode().put("model_type", "gpt2");
        assertThatThrownBy(() -> ModelFamilies.family(unknown, "config.json"))
                .hasMessageContaining("gpt2")
                .hasMessageContaining(ToyFamily.TYPE)
                .hasMessageContaining("qwen2_5_vl");
    }

    @Test
    void theFamilysPositionSchemeIsWhatTheDecoderTurnsWith(@TempDir Path dir) throws Exception {
        try (LanguageModel toy = ModelFamilies.fresh(ToyFamily.PRESET, 5, Device.cpu(), DataType.FLOAT32)) {
            toy.decoder().save(dir);
            // the same weights as a Llama whose rope is scaled linearly by 2 (positions interpolated: p / 2)
            ObjectNode cfg = (ObjectNode) ModelFamilies.config(dir);
            cfg.put("model_type", "llama");
            cfg.putObject("rope_scaling").put("rope_type", "linear").put("factor", 2.0);
            Files.writeString(dir.resolve("config.json"), cfg.toPrettyString());
            try (DecoderModel llama =
                    ModelFamilies.load(dir, Device.cpu(), DataType.FLOAT32).decoder()) {
                float[] halved = logits(toy.decoder());
                float[] scaled = logits(llama);
                for (int i = 0; i < halved.length; i++) {
                    assertThat(halved[i])
                            .as("logit %d", i)
                            .isCloseTo(scaled[i], org.assertj.core.data.Offset.offset(1e-5f));
                }
                // and not the plain Llama's: the scheme changed the numbers
                cfg.remove("rope_scaling");
                Files.writeString(dir.resolve("config.json"), cfg.toPrettyString());
                try (DecoderModel plain =
                        ModelFamilies.load(dir, Device.cpu(), DataType.FLOAT32).decoder()) {
                    assertThat(logits(plain)).isNotEqualTo(halved);
                }
            }
        }
    }
}
