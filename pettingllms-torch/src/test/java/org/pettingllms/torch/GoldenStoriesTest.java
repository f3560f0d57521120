package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.sampling.Generator;

/** A real pretrained tiny Llama (stories260K, tied head, GQA): greedy decoding from BOS writes the golden story. */
@org.junit.jupiter.api.Tag("engine")
class GoldenStoriesTest {
    static final Path DIR = SharedFiles.fixture("stories260k");

    @Test
    void greedyStoryFromBos() throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode golden = json.readTree(DIR.resolve("golden.json").toFile());
        JsonNode vocab = json.readTree(DIR.resolve("vocab.json").toFile());
        int n = golden.get("greedy_new_tokens").size();
        try (DecoderModel model = TestEngine.load(DIR)) {
            assertThat(model.config().tieWordEmbeddings()).isTrue();
            var r = Generator.generate(model, List.of(Generator.Request.greedy(new int[] {1}, n, null)))
                    .get(0);
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < n; i++) {
                assertThat(r.tokens()[i])
                        .as("token %d", i)
                        .isEqualTo(golden.get("greedy_new_tokens").get(i).asInt());
                text.append(vocab.get(r.tokens()[i]).asText().replace('\u2581', ' '));
            }
            assertThat(text.toString())
                    .isEqualTo(golden.get("greedy_text").asText())
                    .startsWith(" Once upon a time, there was a little girl named Lily.");

            // the first 16 positions' logits, teacher-forced
            JsonNode ids = golden.get("first16_ids");
            int[] seq = new int[ids.size()];
            for (int i = 0; i < seq.length; i++) {
                seq[i] = ids.get(i).asInt();
            }
            try (NDManager m = model.manager().newSubManager()) {
                Inputs.Batch in = Inputs.leftPadded(m, List.of(seq), 0);
                NDArray logits = model.forward(in.ids(), in.positions(), in.bias(), null, null);
                float[] got = logits.toFloatArray();
                JsonNode want = golden.get("first16_logits");
                double worst = 0;
                for (int i = 0; i < got.length; i++) {
                    worst = Math.max(worst, Math.abs(got[i] - want.get(i).asDouble()));
                }
                assertThat(got).hasSize(want.size());
                assertThat(worst).isLessThanOrEqualTo(golden.get("tolerance").asDouble());
            }
        }
    }
}
