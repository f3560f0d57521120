package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.sampling.Generator;

/**
 * Parity with an independent PyTorch implementation of transformers' Qwen3 (fixtures/qwen3-tiny/golden.json, float32),
 * on the test device ({@link TestEngine}) with the weights held as {@link #dtype()}: float32 here, bfloat16 in
 * {@link GoldenQwen3Bf16Test}. The tolerances per type are {@link Tolerance}'s.
 */
@Tag("engine")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoldenQwen3Test {
    static final Path DIR = SharedFiles.fixture("qwen3-tiny");
    JsonNode golden;
    DecoderModel model;
    LoraAdapter adapter;
    Tolerance tol;

    /**
     * How far a type may be from the float32 reference. float32: the fixture's own 1e-4 (logits, logprobs) and every
     * greedy token. bfloat16 (8 bits of mantissa: the weights, the activations between ops and each matmul's output
     * are rounded to it): logits and next-token logprobs within 0.3, greedy continuations equal for their first 8
     * tokens (later ones may follow another near-tie). Measured on a CPU with the JNI built against Debian's libtorch
     * 1.13: the engine 0.24 (13 of 24 greedy tokens); PyTorch eager in bf16 on the same library 0.12 with
     * nn.Linear's x W^T and 0.22 with the engine's feature-major W x, whose CPU bf16 kernel rounds more
     * (docs/USAGE.md, "CPU and GPU").
     */
    record Tolerance(double logits, double logprobs, int greedyPrefix) {
        static Tolerance of(DataType type, JsonNode golden) {
            double fp32 = golden.get("tolerance").asDouble();
            return type == DataType.FLOAT32 ? new Tolerance(fp32, 1e-4, Integer.MAX_VALUE) : new Tolerance(0.3, 0.3, 8);
        }
    }

    DataType dtype() {
        return TestEngine.dtype();
    }

    @BeforeAll
    void load() throws Exception {
        assumeTrue(
                dtype() == DataType.FLOAT32 || Torch.bf16Supported(),
                "bf16 needs a JNI library built with bfloat16 (scripts/gpu/run); DJL's prebuilt one has none");
        golden = new ObjectMapper().readTree(DIR.resolve("golden.json").toFile());
        model = TestEngine.load(DIR, dtype());
        adapter = LoraAdapter.load("golden", model, DIR.resolve("adapter"));
        tol = Tolerance.of(dtype(), golden);
    }

    @AfterAll
    void close() {
        if (adapter != null) {
            adapter.close();
        }
        if (model != null) {
            model.close();
        }
    }

    List<int[]> inputIds() {
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

    float[] logits(LoraAdapter lora) {
        try (NDManager m = model.manager().newSubManager()) {
            Inputs.Batch in = Inputs.leftPadded(m, inputIds(), 0);
            NDArray out = model.forward(
                    in.ids(), in.positions(), in.bias(), null, lora == null ? null : LoraRows.all(lora, 2));
            assertThat(out.getShape().getShape()).containsExactly(2, 12, 96);
            return out.toFloatArray();
        }
    }

    void assertClose(float[] actual, JsonNode expected) {
        assertThat(actual).hasSize(expected.size());
        double worst = 0;
        for (int i = 0; i < actual.length; i++) {
            worst = Math.max(worst, Math.abs(actual[i] - expected.get(i).asDouble()));
        }
        System.out.printf("%s %s: max abs logit difference %.2e%n", getClass().getSimpleName(), dtype(), worst);
        assertThat(worst).as("max abs difference").isLessThanOrEqualTo(tol.logits());
    }

    /** The first {@code min(expected, greedyPrefix)} tokens of a greedy continuation equal the reference's. */
    void assertGreedy(int[] actual, int[] expected) {
        int n = Math.min(expected.length, tol.greedyPrefix());
        int same = 0;
        while (same < expected.length && actual[same] == expected[same]) {
            same++;
        }
        System.out.printf(
                "%s %s: greedy tokens equal %d of %d%n", getClass().getSimpleName(), dtype(), same, expected.length);
        assertThat(Arrays.copyOf(actual, n)).containsExactly(Arrays.copyOf(expected, n));
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
                        .isCloseTo(golden.get("token_logprobs").get(b).get(t).asDouble(), within(tol.logprobs()));
            }
        }
    }

    @Test
    void greedyContinuationMatches() {
        int[] prompt = ints(golden.get("greedy_prompt"));
        int[] expected = ints(golden.get("greedy_new_tokens"));
        var r = Generator.generate(model, List.of(Generator.Request.greedy(prompt, expected.length, null)));
        assertGreedy(r.get(0).tokens(), expected);
    }

    @Test
    void adapterLogitsAndGreedyMatch() {
        assertClose(logits(adapter), golden.get("adapter_logits"));
        int[] prompt = ints(golden.get("greedy_prompt"));
        int[] expected = ints(golden.get("adapter_greedy_new_tokens"));
        var r = Generator.generate(model, List.of(Generator.Request.greedy(prompt, expected.length, adapter)));
        assertGreedy(r.get(0).tokens(), expected);
    }
}
