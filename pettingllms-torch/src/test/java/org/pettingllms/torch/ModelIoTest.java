package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.ModelConfig;

class ModelIoTest {
    static float[] logits(DecoderModel m) {
        try (NDManager s = m.manager().newSubManager()) {
            Inputs.Batch in = Inputs.leftPadded(s, List.of(new int[] {1, 5, 9, 3}), 0);
            return m.forward(in.ids(), in.positions(), in.bias(), null, null).toFloatArray();
        }
    }

    @Test
    void freshModelsAreSeededAndEveryArchitectureRoundTripsThroughHuggingFaceFiles(@TempDir Path dir) throws Exception {
        for (String type : new String[] {"llama", "qwen2", "qwen3"}) {
            ModelConfig cfg = ModelConfig.builder(type)
                    .vocabSize(64)
                    .widths(32, 48)
                    .layers(2, 4, 2, 8)
                    .tieWordEmbeddings(type.equals("llama"))
                    .maxPositionEmbeddings(128)
                    .tokens(1, 2)
                    .build();
            try (DecoderModel a = DecoderModel.random(cfg, 7, Device.cpu());
                    DecoderModel b = DecoderModel.random(cfg, 7, Device.cpu());
                    DecoderModel c = DecoderModel.random(cfg, 8, Device.cpu())) {
                assertThat(logits(a)).containsExactly(logits(b));
                assertThat(logits(a)).isNotEqualTo(logits(c));
                assertThat(a.parameters()).as(type).containsKey("model.layers.0.self_attn.q_proj.weight");
                assertThat(a.parameters().containsKey("model.layers.0.self_attn.q_proj.bias"))
                        .isEqualTo(type.equals("qwen2"));
                assertThat(a.parameters().containsKey("model.layers.0.self_attn.q_norm.weight"))
                        .isEqualTo(type.equals("qwen3"));
                Path out = dir.resolve(type);
                a.save(out);
                assertThat(Files.readString(out.resolve("config.json"))).contains("\"model_type\" : \"" + type + "\"");
                try (DecoderModel reloaded = DecoderModel.load(out, Device.cpu())) {
                    assertThat(logits(reloaded)).containsExactly(logits(a));
                    assertThat(reloaded.config()).isEqualTo(cfg);
                }
            }
        }
    }

    @Test
    void unsupportedOrIncompleteModelsAreRefusedWithTheReason(@TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve("config.json"),
                "{\"model_type\":\"gpt2\",\"vocab_size\":8,\"hidden_size\":8,"
                        + "\"intermediate_size\":8,\"num_hidden_layers\":1,\"num_attention_heads\":2}");
        assertThatThrownBy(() -> DecoderModel.load(dir, Device.cpu()))
                .hasMessageContaining("gpt2")
                .hasMessageContaining("llama");
        Files.writeString(dir.resolve("config.json"), "{\"model_type\":\"llama\",\"vocab_size\":8}");
        assertThatThrownBy(() -> DecoderModel.load(dir, Device.cpu()))
                .hasMessageContaining("missing field 'hidden_size'");
    }
}
