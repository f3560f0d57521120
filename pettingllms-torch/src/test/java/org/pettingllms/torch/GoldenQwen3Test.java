package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.sampling.Generator;

/** Parity with an independent PyTorch implementation of transformers' Qwen3 (fixtures/qwen3-tiny/golden.json). */
class GoldenQwen3Test {
    static final Path DIR = SharedFiles.fixture("qwen3-tiny");
    static JsonNode golden;
    static DecoderModel model;
    static LoraAdapter adapter;

    @BeforeAll
    static void load() throws Exception {
        golden = new ObjectMapper().readTree(DIR.resolve("golden.json").toFile());
        model = DecoderModel.load(DIR, Device.cpu());
        adapter = LoraAdapter.load("golden", model, DIR.resolve("adapter"));
    }

    @AfterAll
    static void close() {
        adapter.close();
        model.close();
    }

    static List<int[]> inputIds() {
        List<int[]> rows = new ArrayList<>();
        golden.get("input_ids").forEach(r -> {
            int[] ids = new int[r.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = r.get(i).asInt();
            }
            rows.add(ids);
        });
        return rows;
    }

    static float[] logits(LoraAdapter lora) {
        try (NDManager m = model.manager().newSubManager()) {
            Inputs.Batch in = Inputs.leftPadded(m, inputIds(), 0);
            NDArray out = model.forward(
                    in.ids(), in.positions(), in.bias(), null, lora == null ? null : LoraRows.all(lora, 2));
            assertThat(out.getShape().getShape()).containsExactly(2, 12, 96);
            return out.toFloatArray();
        }
    }

    static void assertClose(float[] actual, JsonNode expected) {
        assertThat(actual).hasSize(expected.size());
        double tol = golden.get("tolerance").asDouble();
        double worst = 0;
        for (int i = 0; i < actual.length; i++) {
            worst = Math.max(worst, Math.abs(actual[i] - expected.get(i).asDouble()));
        }
        assertThat(worst).as("max abs difference").isLessThanOrEqualTo(tol);
    }

    static int[] ints(JsonNode n) {
        int[] out = new int[n.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = n.get(i).asInt();
        }
        return out;
    }

    @Test
    void logitsMatch() {
        assertClose(logits(null), golden.get("logits"));
    }

    @Test
    void nextTokenLogprobsMatch() {
        float[] l = logits(null);
        List<int[]> ids = inputIds();
        for (int b = 0; b < 2; b++) {
            for (int t = 0; t < 11; t++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int v = 0; v < 96; v++) {
                    max = Math.max(max, l[(b * 12 + t) * 96 + v]);
                }
                double sum = 0;
                for (int v = 0; v < 96; v++) {
                    sum += Math.exp(l[(b * 12 + t) * 96 + v] - max);
                }
                double lp = l[(b * 12 + t) * 96 + ids.get(b)[t + 1]] - max - Math.log(sum);
                assertThat(lp)
                        .isCloseTo(golden.get("token_logprobs").get(b).get(t).asDouble(), within(1e-4));
            }
        }
    }

    @Test
    void greedyContinuationMatches() {
        int[] prompt = ints(golden.get("greedy_prompt"));
        int[] expected = ints(golden.get("greedy_new_tokens"));
        var r = Generator.generate(model, List.of(Generator.Request.greedy(prompt, expected.length, null)));
        assertThat(r.get(0).tokens()).containsExactly(expected);
    }

    @Test
    void adapterLogitsAndGreedyMatch() {
        assertClose(logits(adapter), golden.get("adapter_logits"));
        int[] prompt = ints(golden.get("greedy_prompt"));
        int[] expected = ints(golden.get("adapter_greedy_new_tokens"));
        var r = Generator.generate(model, List.of(Generator.Request.greedy(prompt, expected.length, adapter)));
        assertThat(r.get(0).tokens()).containsExactly(expected);
    }
}
