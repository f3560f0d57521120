package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.GradientCollector;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.train.SequenceBatch;

/** Gradients of the mean next-token NLL w.r.t. LoRA tensors match the independent PyTorch reference. */
@org.junit.jupiter.api.Tag("engine")
class GoldenLoraGradientTest {
    static final Path DIR = SharedFiles.fixture("qwen3-tiny");

    @Test
    void loraGradientsMatch() throws Exception {
        JsonNode golden = new ObjectMapper().readTree(DIR.resolve("golden.json").toFile());
        int[] ids = new int[golden.get("input_ids").get(0).size()];
        Arrays.setAll(ids, i -> golden.get("input_ids").get(0).get(i).asInt());
        try (DecoderModel model = TestEngine.load(DIR);
                LoraAdapter adapter = LoraAdapter.load("golden", model, DIR.resolve("adapter"))) {
            Map<String, NDArray> params = adapter.parameters();
            params.values().forEach(p -> p.setRequiresGradient(true));
            // prompt = first token, completion = the rest: the mask selects every next-token prediction
            SequenceBatch batch =
                    new SequenceBatch(List.of(new int[] {ids[0]}), List.of(Arrays.copyOfRange(ids, 1, ids.length)));
            try (NDManager scope = model.manager().newSubManager();
                    GradientCollector gc = Torch.engine().newGradientCollector()) {
                SequenceBatch.Logprobs lp = batch.logprobs(model, scope, LoraRows.all(adapter, 1));
                NDArray loss =
                        lp.logprobs().mul(lp.mask()).sum().div(lp.mask().sum()).neg();
                assertThat(loss.getFloat())
                        .isCloseTo((float) golden.get("lora_loss").asDouble(), within(1e-4f));
                gc.backward(loss);
            }
            golden.get("lora_grads").fields().forEachRemaining(e -> {
                NDArray grad = params.get(e.getKey()).getGradient();
                float[] g = grad.toFloatArray();
                grad.close();
                double maxRef = 0;
                double maxDiff = 0;
                for (int i = 0; i < g.length; i++) {
                    double ref = e.getValue().get(i).asDouble();
                    maxRef = Math.max(maxRef, Math.abs(ref));
                    maxDiff = Math.max(maxDiff, Math.abs(g[i] - ref));
                }
                assertThat(g).hasSize(e.getValue().size());
                assertThat(maxRef)
                        .as("reference gradient of %s is not trivial", e.getKey())
                        .isGreaterThan(0);
                assertThat(maxDiff / maxRef)
                        .as("relative error of %s", e.getKey())
                        .isLessThan(1e-4);
            });
        }
    }
}
