package org.pettingllms.torch.vision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.text.CharCodec;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.engine.LoraSettings;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TorchSampler;
import org.pettingllms.torch.engine.TrainSettings;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.image.RgbImage;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.sampling.Generator;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * Images through the engine's own sampler and learner (not the family's reference loop): the batched generator
 * reproduces transformers' greedy continuation beside other rows, and the learner recomputes the sampler's logprobs
 * from the same image bytes, with and without prompt sharing; LoRA training on image prompts moves what it rewards.
 */
@Tag("engine")
class VisionEngineTest {
    static final Path DIR = SharedFiles.fixture("qwen25vl-tiny");
    static final Path GOLDEN = DIR.resolve("golden.safetensors");

    static DecoderModel load() throws Exception {
        return ModelFamilies.load(DIR, TestEngine.device(), DataType.FLOAT32).decoder();
    }

    static int[] prompt() throws Exception {
        return Arrays.stream(SafeTensors.readInt64(GOLDEN, "input_ids"))
                .mapToInt(v -> (int) v)
                .toArray();
    }

    static Image image() throws Exception {
        return Image.png(Files.readAllBytes(DIR.resolve("image.png")));
    }

    /** The fixture's image mirrored left to right: the same size, so the same placeholders, other pixels. */
    static Image mirrored() throws Exception {
        RgbImage img = RgbImage.decode(Files.readAllBytes(DIR.resolve("image.png")), "image.png");
        BufferedImage out = new BufferedImage(img.width(), img.height(), BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < img.height(); y++) {
            for (int x = 0; x < img.width(); x++) {
                out.setRGB(x, y, img.rgb()[y * img.width() + img.width() - 1 - x]);
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ImageIO.write(out, "png", bytes);
        return Image.png(bytes.toByteArray());
    }

    static Generator.Request request(int[] ids, List<Image> images, double temperature, int max, long seed) {
        return new Generator.Request(ids, null, temperature, 0, 1.0, max, new int[0], null, seed, images);
    }

    @Test
    void batchedGenerationReproducesTheGoldenGreedyBesideOtherRows() throws Exception {
        long[] golden = SafeTensors.readInt64(GOLDEN, "greedy_ids");
        int[] want = Arrays.stream(golden).mapToInt(v -> (int) v).toArray();
        int[] p = prompt();
        int[] text = {5, 17, 33, 9, 41, 7};
        try (DecoderModel model = load()) {
            Image a = image();
            Image b = mirrored();
            List<Generator.Result> alone = Generator.generate(model, List.of(request(p, List.of(b), 0, 8, 0)));
            List<Generator.Result> textAlone = Generator.generate(model, List.of(request(text, List.of(), 0, 8, 0)));
            // three candidates of the golden prompt (one shared prefill), the same ids with other pixels, and text
            List<Generator.Request> batch = List.of(
                    request(p, List.of(a), 0, 8, 1),
                    request(p, List.of(b), 0, 8, 2),
                    request(p, List.of(a), 0, 8, 3),
                    request(text, List.of(), 0, 8, 4),
                    request(p, List.of(a), 0, 8, 5));
            List<Generator.Result> got = Generator.generate(model, batch);
            for (int r : new int[] {0, 2, 4}) {
                assertThat(got.get(r).tokens()).as("row %d", r).containsExactly(want);
            }
            assertThat(got.get(1).tokens()).containsExactly(alone.get(0).tokens());
            assertThat(got.get(3).tokens()).containsExactly(textAlone.get(0).tokens());
            // every row prefilled alone gives the same tokens (no sharing)
            List<Generator.Result> unshared = Generator.generate(model, batch, false);
            for (int r = 0; r < batch.size(); r++) {
                assertThat(unshared.get(r).tokens())
                        .as("row %d unshared", r)
                        .containsExactly(got.get(r).tokens());
            }
        }
    }

    @Test
    void theLearnerRecomputesTheSamplersLogprobsFromTheImageBytes() throws Exception {
        int[] p = prompt();
        try (DecoderModel model = load()) {
            Image a = image();
            Image b = mirrored();
            List<Generator.Request> batch = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                batch.add(request(p, List.of(i == 3 ? b : a), 1.0, 6, 40 + i));
            }
            List<Generator.Result> sampled = Generator.generate(model, batch);
            List<int[]> prompts = new ArrayList<>();
            List<int[]> completions = new ArrayList<>();
            List<List<Image>> images = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                prompts.add(p);
                completions.add(sampled.get(i).tokens());
                images.add(batch.get(i).images());
            }
            SequenceBatch sb = new SequenceBatch(prompts, completions, images);
            for (boolean share : new boolean[] {false, true}) {
                try (NDManager scope = model.manager().newSubManager()) {
                    SequenceBatch.Logprobs lp = sb.logprobs(model, scope, null, false, share);
                    float[] flat = lp.logprobs().toFloatArray();
                    for (int r = 0; r < batch.size(); r++) {
                        float[] got = lp.row(flat, r, completions.get(r).length);
                        float[] want = sampled.get(r).logprobs();
                        for (int j = 0; j < want.length; j++) {
                            assertThat(got[j])
                                    .as("share %s row %d token %d", share, r, j)
                                    .isCloseTo(want[j], within(1e-4f));
                        }
                    }
                }
            }
            // a completion that holds the placeholder's id (a model may sample it) is text: shared and unshared agree
            SequenceBatch sampledPad = new SequenceBatch(
                    List.of(p, p), List.of(new int[] {250, 13, 250}, new int[] {7}), List.of(List.of(a), List.of(a)));
            float[][] both = new float[2][];
            for (int share = 0; share < 2; share++) {
                try (NDManager scope = model.manager().newSubManager()) {
                    SequenceBatch.Logprobs lp = sampledPad.logprobs(model, scope, null, false, share == 1);
                    both[share] = lp.row(lp.logprobs().toFloatArray(), 0, 3);
                }
            }
            for (int j = 0; j < 3; j++) {
                assertThat(both[1][j]).isCloseTo(both[0][j], within(1e-4f));
            }
            // the placeholders without their image are refused, not read as text
            SequenceBatch blind = new SequenceBatch(List.of(p), List.of(completions.get(0)));
            try (NDManager scope = model.manager().newSubManager()) {
                assertThatThrownBy(() -> blind.logprobs(model, scope, null, false, false))
                        .hasMessageContaining("placeholder");
            }
        }
    }

    @Test
    void loraTrainingOnImagePromptsRaisesTheRewardedCompletion() throws Exception {
        int[] p = prompt();
        PolicyRef ref = new PolicyRef("vl", "planner");
        try (PolicyRegistry reg = new PolicyRegistry(
                        Map.of("vl", load()), new LoraSettings(4, 8, LoraSettings.DEFAULT.targetModules()), 3);
                TorchLearner learner = new TorchLearner(reg, new TrainSettings(4, false, true))) {
            Image a = image();
            List<Generator.Request> batch = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                batch.add(new Generator.Request(
                        p, reg.adapter(ref), 1.0, 0, 1.0, 5, new int[0], null, 70 + i, List.of(a)));
            }
            List<Generator.Result> sampled = Generator.generate(reg.model("vl"), batch);
            List<TrainExample> examples = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                examples.add(new TrainExample(
                        IntSeq.of(p),
                        IntSeq.of(sampled.get(i).tokens()),
                        FloatSeq.of(sampled.get(i).logprobs()),
                        i == 0 ? 1.5 : -0.5,
                        List.of(a)));
            }
            double before = sum(learner.logprobs(ref, examples).get(0));
            LossConfig loss = new LossConfig(0.2, 0.28, LossConfig.Aggregation.TOKEN_MEAN, 0.0, 0.0);
            for (int step = 0; step < 5; step++) {
                List<FloatSeq> now = learner.logprobs(ref, examples);
                List<TrainExample> onPolicy = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    TrainExample e = examples.get(i);
                    onPolicy.add(new TrainExample(
                            e.promptTokens(), e.completionTokens(), now.get(i), e.advantage(), e.images()));
                }
                learner.forwardBackward(ref, onPolicy, loss);
                learner.optimStep(ref, new OptimParams(3e-2, 0.9, 0.999, 1e-8, 0.0, 1.0));
            }
            double after = sum(learner.logprobs(ref, examples).get(0));
            assertThat(after).as("log p(rewarded completion | image prompt)").isGreaterThan(before + 0.5);
        }
    }

    /**
     * engine.trainVisionTower: full fine-tuning on image prompts updates every tower weight with the decoder and
     * a checkpoint restores them; without it the tower stays bit for bit as loaded while the decoder moves. A KL
     * reference copies the tower that trains (it keeps the base tower).
     */
    @Test
    void fullFineTuningTrainsTheTowerOnlyWhenAsked(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        for (boolean tower : new boolean[] {false, true}) {
            PolicyRef ref = PolicyRef.of("vl");
            try (PolicyRegistry reg = new PolicyRegistry(Map.of("vl", load()), LoraSettings.DEFAULT, 3);
                    TorchLearner learner = new TorchLearner(reg, new TrainSettings(4, false, true, tower))) {
                DecoderModel model = reg.model("vl");
                Map<String, float[]> visionBefore = host(model.inputEncoder().parameters());
                float[] embedBefore =
                        model.parameters().get("model.embed_tokens.weight").toFloatArray();
                try (DecoderModel reference = model.frozenCopy(tower)) {
                    trainOnImages(learner, ref);
                    Map<String, float[]> visionAfter = host(model.inputEncoder().parameters());
                    assertThat(model.parameters()
                                    .get("model.embed_tokens.weight")
                                    .toFloatArray())
                            .isNotEqualTo(embedBefore);
                    for (String k : visionBefore.keySet()) {
                        if (tower) {
                            assertThat(visionAfter.get(k)).as(k).isNotEqualTo(visionBefore.get(k));
                        } else {
                            assertThat(visionAfter.get(k)).as(k).isEqualTo(visionBefore.get(k));
                        }
                    }
                    assertThat(host(reference.inputEncoder().parameters()))
                            .as("the KL reference's tower")
                            .usingRecursiveComparison()
                            .isEqualTo(tower ? visionBefore : visionAfter);
                }
                if (!tower) {
                    continue;
                }
                Path dir = tmp.resolve("checkpoint");
                learner.save(ref, dir);
                Map<String, float[]> saved = host(model.inputEncoder().parameters());
                try (PolicyRegistry again = new PolicyRegistry(Map.of("vl", load()), LoraSettings.DEFAULT, 3);
                        TorchLearner back = new TorchLearner(again, new TrainSettings(4, false, true, true))) {
                    back.load(ref, dir);
                    assertThat(host(again.model("vl").inputEncoder().parameters()))
                            .usingRecursiveComparison()
                            .isEqualTo(saved);
                }
            }
        }
    }

    private static void trainOnImages(TorchLearner learner, PolicyRef ref) throws Exception {
        int[] p = prompt();
        List<TrainExample> examples = new ArrayList<>();
        Image[] images = {image(), mirrored()};
        for (int i = 0; i < 4; i++) {
            int[] completion = {10 + i, 20 + i, 3};
            examples.add(new TrainExample(
                    IntSeq.of(p),
                    IntSeq.of(completion),
                    FloatSeq.of(new float[completion.length]),
                    i % 2 == 0 ? 1.0 : -1.0,
                    List.of(images[i % 2])));
        }
        List<FloatSeq> now = learner.logprobs(ref, examples);
        List<TrainExample> onPolicy = new ArrayList<>();
        for (int i = 0; i < examples.size(); i++) {
            TrainExample e = examples.get(i);
            onPolicy.add(
                    new TrainExample(e.promptTokens(), e.completionTokens(), now.get(i), e.advantage(), e.images()));
        }
        learner.forwardBackward(ref, onPolicy, new LossConfig(0.2, 0.28, LossConfig.Aggregation.TOKEN_MEAN, 0.0, 0.0));
        learner.optimStep(ref, new OptimParams(1e-2, 0.9, 0.999, 1e-8, 0.0, 1.0));
    }

    private static Map<String, float[]> host(Map<String, ai.djl.ndarray.NDArray> params) {
        Map<String, float[]> out = new java.util.TreeMap<>();
        params.forEach((k, a) -> out.put(k, a.toFloatArray()));
        return out;
    }

    @Test
    void aSavedModelLoadsBackWithItsTowerAndProcessor(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        int[] p = prompt();
        try (DecoderModel model = load()) {
            model.save(tmp);
            assertThat(tmp.resolve("preprocessor_config.json")).exists();
            try (DecoderModel back = ModelFamilies.load(tmp, TestEngine.device(), DataType.FLOAT32)
                    .decoder()) {
                assertThat(back.inputEncoder()).isNotNull();
                Generator.Request r = request(p, List.of(image()), 1.0, 6, 5);
                Generator.Result a = Generator.generate(model, List.of(r)).get(0);
                Generator.Result b = Generator.generate(back, List.of(r)).get(0);
                assertThat(b.tokens()).containsExactly(a.tokens());
                assertThat(b.logprobs()).containsExactly(a.logprobs());
            }
        }
    }

    @Test
    void aRequestWhosePlaceholdersLackTheirImageFailsAloneBeforeItJoinsABatch() throws Exception {
        try (PolicyRegistry reg = new PolicyRegistry(Map.of("vl", load()), LoraSettings.DEFAULT, 1);
                TorchSampler sampler = new TorchSampler(reg, m -> new CharCodec(), 8, 20_000)) {
            SamplingParams params = new SamplingParams(0.0, 0, 1.0, 4, List.of(), 1);
            int[] p = prompt();
            Image a = image();
            var good = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> sampler.sampleTokens(PolicyRef.of("vl"), p, List.of(a), 1, params));
            assertThatThrownBy(() -> sampler.sampleTokens(PolicyRef.of("vl"), p, List.of(), 1, params))
                    .hasMessageContaining("prompt: ")
                    .hasMessageContaining("placeholder");
            long[] golden = SafeTensors.readInt64(GOLDEN, "greedy_ids");
            int[] want = Arrays.stream(golden).limit(4).mapToInt(v -> (int) v).toArray();
            assertThat(good.get().get(0).tokens().toArray()).containsExactly(want);
        }
    }

    @Test
    void aTextModelGivenAnImageFailsInOneLineNamingTheModel() throws Exception {
        try (PolicyRegistry reg = new PolicyRegistry(
                        Map.of("tiny", TestEngine.load(SharedFiles.fixture("qwen3-tiny"))), LoraSettings.DEFAULT, 1);
                TorchSampler sampler = new TorchSampler(reg, m -> new CharCodec(), 4, 1000)) {
            Prompt p = new Prompt(List.of(ChatMessage.user("where?", List.of(image()))), PromptStyle.COMPACT);
            assertThatThrownBy(() -> sampler.sample(
                            PolicyRef.of("tiny"), p, 1, new SamplingParams(1.0, 0, 1.0, 4, List.of(), 1)))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessage("model 'tiny' (model_type qwen3) takes no images; this prompt shows 1");
        }
    }

    private static double sum(FloatSeq s) {
        double t = 0;
        for (float v : s.toArray()) {
            t += v;
        }
        return t;
    }
}
