package org.pettingllms.torch.vision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.family.qwen25vl.ImageProcessor;
import org.pettingllms.torch.family.qwen25vl.Qwen25VlConfig;
import org.pettingllms.torch.family.qwen25vl.Qwen25VlModel;
import org.pettingllms.torch.family.qwen25vl.RopeIndex;
import org.pettingllms.torch.image.RgbImage;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;

/**
 * Parity with transformers 5.17's Qwen2.5-VL (fixtures/qwen25vl-tiny, float32): the image processor's pixel values
 * and grid, the expanded placeholders, the M-RoPE positions and rope delta, the vision tower's merged embeddings, the
 * logits of the whole prompt (1e-4) and the greedy continuation with the KV cache (every token).
 */
@Tag("engine")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoldenQwen25VlTest {
    static final Path DIR = SharedFiles.fixture("qwen25vl-tiny");
    static final Path GOLDEN = DIR.resolve("golden.safetensors");
    Qwen25VlModel model;
    Map<String, Tensor> golden;
    JsonNode goldenJson;
    ImageProcessor.Patches patches;
    int[] inputIds;

    @BeforeAll
    void load() throws Exception {
        model = (Qwen25VlModel) ModelFamilies.load(DIR, TestEngine.device(), DataType.FLOAT32);
        golden = SafeTensors.readFloats(GOLDEN);
        goldenJson = new ObjectMapper().readTree(DIR.resolve("golden.json").toFile());
        // the fixture's processor settings (its README): min_pixels 3136, max_pixels 50176
        JsonNode settings = goldenJson.get("image_processor");
        ImageProcessor p = ImageProcessor.read(settings, model.processor(), "golden.json");
        patches = p.patches(RgbImage.decode(Files.readAllBytes(DIR.resolve("image.png")), "image.png"));
        inputIds = Arrays.stream(SafeTensors.readInt64(GOLDEN, "input_ids"))
                .mapToInt(v -> (int) v)
                .toArray();
    }

    @AfterAll
    void close() {
        if (model != null) {
            model.close();
        }
    }

    @Test
    void readsTheConfigInBothLayouts() throws Exception {
        JsonNode five = ModelFamilies.config(DIR);
        Qwen25VlConfig a = Qwen25VlConfig.fromJson(five, "5.x");
        assertThat(a.mropeSection()).containsExactly(2, 3, 3);
        assertThat(a.text().numLayers()).isEqualTo(2);
        assertThat(a.text().qkvBias()).isTrue();
        assertThat(a.vision().fullAttentionBlocks()).containsExactly(1);
        assertThat(a.imageTokenId()).isEqualTo(250);
        // the same model as transformers 4.x wrote configs: text fields on top, rope_scaling.mrope_section
        ObjectNode four = ((ObjectNode) five.get("text_config")).deepCopy();
        four.remove("rope_parameters");
        four.putObject("rope_scaling")
                .put("type", "mrope")
                .putArray("mrope_section")
                .add(2)
                .add(3)
                .add(3);
        four.put("rope_theta", 10000.0);
        four.put("model_type", "qwen2_5_vl");
        for (String k : List.of("vision_config", "image_token_id", "vision_start_token_id", "vision_end_token_id")) {
            four.set(k, five.get(k));
        }
        Qwen25VlConfig b = Qwen25VlConfig.fromJson(four, "4.x");
        assertThat(b.text()).isEqualTo(a.text());
        assertThat(b.vision()).isEqualTo(a.vision());
        ObjectNode broken = four.deepCopy();
        broken.remove("rope_scaling");
        assertThatThrownBy(() -> Qwen25VlConfig.fromJson(broken, "cfg.json"))
                .hasMessageContaining("cfg.json")
                .hasMessageContaining("mrope_section");
    }

    @Test
    void pixelValuesAndGridMatch() throws Exception {
        assertThat(new long[] {patches.gridT(), patches.gridH(), patches.gridW()})
                .containsExactly(SafeTensors.readInt64(GOLDEN, "image_grid_thw"));
        Tensor want = golden.get("pixel_values");
        assertThat(patches.values()).hasSize(want.data().length);
        assertThat(maxDiff(patches.values(), want.data())).isLessThanOrEqualTo(1e-6);
    }

    @Test
    void placeholdersExpandAndPositionsMatch() throws Exception {
        int[] compact = Arrays.stream(inputIds).distinct().toArray(); // one pad stands for the image
        int[] chat = new int[inputIds.length - 11];
        for (int i = 0, o = 0, pads = 0; i < inputIds.length; i++) {
            if (inputIds[i] != 250 || pads++ == 0) {
                chat[o++] = inputIds[i];
            }
        }
        assertThat(compact).isNotEmpty();
        assertThat(model.expandPlaceholders(chat, List.of(patches))).containsExactly(inputIds);
        RopeIndex.Positions p = model.positions(inputIds, List.of(patches));
        long[] want = SafeTensors.readInt64(GOLDEN, "position_ids");
        long[] got = new long[want.length];
        for (int a = 0; a < 3; a++) {
            System.arraycopy(p.ids()[a], 0, got, a * inputIds.length, inputIds.length);
        }
        assertThat(got).containsExactly(want);
        assertThat(p.delta()).isEqualTo(SafeTensors.readInt64(GOLDEN, "rope_deltas")[0]);
        assertThatThrownBy(() -> model.positions(inputIds, List.of())).hasMessageContaining("more image placeholders");
    }

    @Test
    void imageEmbeddingsMatch() {
        try (NDManager m = model.decoder().manager().newSubManager()) {
            float[] got = model.imageEmbeddings(List.of(patches), m).toFloatArray();
            assertThat(maxDiff(got, golden.get("image_embeds").data())).isLessThanOrEqualTo(1e-4);
        }
    }

    @Test
    void logitsMatch() {
        try (NDManager m = model.decoder().manager().newSubManager()) {
            NDArray logits = model.logits(inputIds, List.of(patches), m);
            assertThat(logits.getShape()).isEqualTo(new Shape(1, inputIds.length, 256));
            assertThat(maxDiff(logits.toFloatArray(), golden.get("logits").data()))
                    .isLessThanOrEqualTo(1e-4);
        }
    }

    @Test
    void greedyContinuationWithTheCacheMatches() throws Exception {
        long[] want = SafeTensors.readInt64(GOLDEN, "greedy_ids");
        int[] got = model.greedy(inputIds, List.of(patches), want.length);
        assertThat(Arrays.stream(got).asLongStream().toArray()).containsExactly(want);
    }

    static double maxDiff(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) {
            d = Math.max(d, Math.abs(a[i] - b[i]));
        }
        return d;
    }
}
