package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.hub.FakeHub;
import org.pettingllms.hub.FakeHub.Content;
import org.pettingllms.hub.FakeHub.Request;
import org.pettingllms.hub.RepoId;
import org.pettingllms.testkit.SharedFiles;

/** {@code fetch}, and Hub names in configs and {@code serve --model}, against a local server that answers as the Hub. */
class HubCommandsTest {
    static final RepoId MODEL = RepoId.model("acme/tiny-chat");
    static final RepoId DATASET = RepoId.dataset("acme/arith");
    static final String TRAIN = "{\"question\": \"What is 1+1?\", \"answer\": \"2\"}\n"
            + "{\"question\": \"What is 2+3?\", \"answer\": \"5\"}\n";
    static final String TEST = "{\"question\": \"What is 2+2?\", \"answer\": \"4\"}\n"
            + "{\"question\": \"What is 3+3?\", \"answer\": \"6\"}\n";

    @TempDir
    Path dir;

    FakeHub hub;
    String modelCommit;
    String datasetCommit;

    @BeforeEach
    void start() throws Exception {
        hub = new FakeHub();
        Map<String, Content> model = new LinkedHashMap<>();
        model.put("config.json", Content.text("{\"model_type\": \"qwen3\"}"));
        model.put("tokenizer.json", Content.text("{}"));
        model.put("model.safetensors", Content.lfs(new byte[70_000]));
        model.put("pytorch_model.bin", Content.lfs(new byte[90_000]));
        model.put("README.md", Content.text("# tiny chat\n"));
        modelCommit = hub.commit(MODEL, "main", model);
        Map<String, Content> data = new LinkedHashMap<>();
        data.put("README.md", Content.text("# arithmetic\n"));
        data.put("data/train-00000-of-00001.jsonl", Content.lfs(TRAIN.getBytes(StandardCharsets.UTF_8)));
        data.put("data/test-00000-of-00001.jsonl", Content.lfs(TEST.getBytes(StandardCharsets.UTF_8)));
        data.put("extra/test-00000-of-00001.jsonl", Content.lfs(TEST.getBytes(StandardCharsets.UTF_8)));
        datasetCommit = hub.commit(DATASET, "main", data);
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    Map<String, String> env(String... more) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("HF_") || k.startsWith("HUGGING") || k.equals("TRANSFORMERS_OFFLINE"));
        env.put("HOME", dir.toString());
        env.put("HF_HUB_CACHE", dir.resolve("hub").toString());
        env.put("HF_ENDPOINT", hub.endpoint().toString());
        for (int i = 0; i + 1 < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    CliTest.Result run(Map<String, String> env, String... args) {
        return CliTest.run(env, args);
    }

    static List<String> errorLines(CliTest.Result r) {
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("--debug");
        return r.err().lines().filter(l -> l.startsWith("error: ")).toList();
    }

    @Test
    void fetchDownloadsARepoAndPrintsItsSnapshotFolder() throws Exception {
        CliTest.Result r = run(env(), "fetch", "acme/tiny-chat");

        assertThat(r.code()).as(r.err()).isZero();
        Path folder = dir.resolve("hub/models--acme--tiny-chat/snapshots").resolve(modelCommit);
        assertThat(r.out()).isEqualTo(folder + System.lineSeparator());
        assertThat(folder.resolve("pytorch_model.bin")).exists();
        assertThat(r.err()).contains("model repo acme/tiny-chat at " + modelCommit + ": 5 files");

        CliTest.Result json = run(
                env(),
                "fetch",
                "acme/tiny-chat",
                "--include",
                "*.json",
                "--exclude",
                "tok*",
                "--revision",
                modelCommit);
        assertThat(json.code()).as(json.err()).isZero();
        assertThat(json.err()).contains(": 1 file");
    }

    @Test
    void aRepoThatIsNoModelIsTriedAsADataset() {
        CliTest.Result r = run(env(), "fetch", "acme/arith", "--include", "data/*");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err())
                .contains("no model repo acme/arith on the Hub; trying the dataset repo" + " datasets/acme/arith@main");
        assertThat(r.out().strip())
                .isEqualTo(dir.resolve("hub/datasets--acme--arith/snapshots")
                        .resolve(datasetCommit)
                        .toString());
        assertThat(Path.of(r.out().strip()).resolve("data/test-00000-of-00001.jsonl"))
                .exists();

        CliTest.Result prefixed = run(env(), "fetch", "datasets/acme/arith", "--include", "README.md");
        assertThat(prefixed.code()).isZero();
        assertThat(prefixed.err()).doesNotContain("trying");
    }

    @Test
    void fetchErrorsAreOneLineWithANonZeroExitCode() {
        CliTest.Result missing = run(env(), "fetch", "acme/nope");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(errorLines(missing))
                .containsExactly("error: model repo acme/nope not found on " + hub.endpoint()
                        + " (if it is private or gated, set HF_TOKEN to a token that can read it); no dataset repo of that name"
                        + " either");

        hub.gate(MODEL, "hf_ok");
        CliTest.Result gated = run(env(), "fetch", "acme/tiny-chat");
        assertThat(gated.code()).isEqualTo(1);
        assertThat(errorLines(gated))
                .singleElement()
                .asString()
                .contains("is gated: accept its terms on " + hub.endpoint() + "/acme/tiny-chat")
                .contains("HF_TOKEN");
        assertThat(run(env("HF_TOKEN", "hf_ok"), "fetch", "acme/tiny-chat").code())
                .isZero();

        CliTest.Result offline = run(env("HF_HUB_OFFLINE", "1"), "fetch", "acme/other");
        assertThat(offline.code()).isEqualTo(1);
        assertThat(errorLines(offline))
                .singleElement()
                .asString()
                .contains("not in the Hugging Face cache")
                .contains("HF_HUB_OFFLINE");

        CliTest.Result bad = run(env(), "fetch", "just-a-name");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(errorLines(bad))
                .containsExactly("error: 'just-a-name' is not a Hub repo; expected org/name,"
                        + " org/name@revision or datasets/org/name, for example Qwen/Qwen3-1.7B");
    }

    @Test
    void aConfigNamingAHubModelAndHfFilesGetsLocalPathsAndOnlyTheFilesItNeeds() throws Exception {
        RunSetup setup = RunSetup.load(
                CliTest.CONFIGS.resolve("math/L1.yaml"),
                List.of(
                        "policy.model=acme/tiny-chat",
                        "task.options.generator=",
                        "task.options.train=hf://datasets/acme/arith/data/train-*.jsonl",
                        "task.options.test=hf://datasets/acme/arith@main/data/test-00000-of-00001.jsonl"),
                env());

        Path model = dir.resolve("hub/models--acme--tiny-chat/snapshots").resolve(modelCommit);
        Path data = dir.resolve("hub/datasets--acme--arith/snapshots").resolve(datasetCommit);
        assertThat(setup.config().policy().model()).isEqualTo(model.toString());
        assertThat(setup.config().rollout().servedModel()).isEqualTo("acme/tiny-chat");
        assertThat(setup.config().task().options())
                .containsEntry(
                        "train", data.resolve("data/train-00000-of-00001.jsonl").toString())
                .containsEntry(
                        "test", data.resolve("data/test-00000-of-00001.jsonl").toString());
        assertThat(setup.problems(Split.TEST)).hasSize(2);
        // the engine's files of the model (no .bin, no card), and the two files of the dataset
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith("pytorch_model.bin") || p.endsWith("README.md"))
                .anyMatch(p -> p.endsWith("/config.json"));
        assertThat(Files.exists(model.resolve("pytorch_model.bin"))).isFalse();
        assertThat(Files.exists(data.resolve("extra"))).isFalse();

        // offline, the same config is served by the cache without a request
        hub.clearRequests();
        RunSetup offline = RunSetup.load(
                CliTest.CONFIGS.resolve("math/L1.yaml"),
                List.of(
                        "policy.model=acme/tiny-chat@main",
                        "task.options.generator=",
                        "task.options.train=hf://datasets/acme/arith/data/train-*.jsonl",
                        "task.options.test=hf://datasets/acme/arith/data/test-*.jsonl"),
                env("HF_HUB_OFFLINE", "on"));
        assertThat(offline.config().policy().model()).isEqualTo(model.toString());
        assertThat(hub.requests()).isEmpty();
    }

    @Test
    void evaluateRunsOnADatasetFromTheHub() {
        CliTest.Result r = run(
                env(),
                "evaluate",
                CliTest.CONFIGS.resolve("math/L1.yaml").toString(),
                "--policy",
                "oracle",
                "--set",
                "task.maxTurns=2",
                "--set",
                "task.options.generator=",
                "--set",
                "task.options.train=hf://datasets/acme/arith/data/train-*.jsonl",
                "--set",
                "task.options.test=hf://datasets/acme/arith/data/test-*.jsonl",
                "--split",
                "test");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("| test problems 0-1 x 1 |").contains("success 100.0%");
    }

    @Test
    void aHubNameThatCannotBeResolvedIsAConfigErrorNamingTheKey() {
        String config = CliTest.CONFIGS.resolve("math/L1.yaml").toString();
        CliTest.Result two = run(
                env(),
                "evaluate",
                config,
                "--policy",
                "oracle",
                "--set",
                "task.options.generator=",
                "--set",
                "task.options.test=hf://datasets/acme/arith/*/test-*.jsonl");
        assertThat(two.code()).isEqualTo(2);
        assertThat(errorLines(two))
                .containsExactly("error: config key 'task.options.test':"
                        + " hf://datasets/acme/arith/*/test-*.jsonl matches 2 files: data/test-00000-of-00001.jsonl,"
                        + " extra/test-00000-of-00001.jsonl; it must match one");

        CliTest.Result model = run(env(), "evaluate", config, "--model", "acme/missing");
        assertThat(model.code()).isEqualTo(2);
        assertThat(errorLines(model))
                .singleElement()
                .asString()
                .startsWith("error: config key 'policy.model':"
                        + " 'acme/missing' is no directory here, and from the Hugging Face Hub: model repo acme/missing not"
                        + " found on " + hub.endpoint());

        // a local directory with the form of an id stays local
        HubResolver resolver = new HubResolver(env());
        assertThat(resolver.model(
                        CliTest.CONFIGS
                                .getParent()
                                .resolve("models/plan-path-tiny")
                                .toString(),
                        "x"))
                .endsWith("plan-path-tiny");
        assertThat(resolver.model("fresh:tiny", "x")).isEqualTo("fresh:tiny");
    }

    @Tag("heavy")
    @Test
    void aDryRunOfTheVisionRecipeCountsImageTokensAndEstimatesMemory() throws Exception {
        Path tok = SharedFiles.fixture("qwen3-tokenizer");
        Map<String, Content> files = new LinkedHashMap<>();
        // Qwen2.5-VL-3B-Instruct's config.json and preprocessor_config.json as its repo holds them (4.x layout)
        files.put(
                "config.json",
                Content.text(
                        "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"model_type\": \"qwen2_5_vl\","
                                + " \"vocab_size\": 151936, \"hidden_size\": 2048, \"intermediate_size\": 11008,"
                                + " \"num_hidden_layers\": 36, \"num_attention_heads\": 16, \"num_key_value_heads\": 2,"
                                + " \"max_position_embeddings\": 128000, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0,"
                                + " \"tie_word_embeddings\": true, \"bos_token_id\": 151643, \"eos_token_id\": 151645,"
                                + " \"vision_start_token_id\": 151652, \"vision_end_token_id\": 151653,"
                                + " \"image_token_id\": 151655, \"video_token_id\": 151656,"
                                + " \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [16, 24, 24]},"
                                + " \"vision_config\": {\"depth\": 32, \"hidden_act\": \"silu\", \"hidden_size\": 1280,"
                                + " \"intermediate_size\": 3420, \"num_heads\": 16, \"in_chans\": 3, \"out_hidden_size\": 2048,"
                                + " \"patch_size\": 14, \"spatial_merge_size\": 2, \"spatial_patch_size\": 14,"
                                + " \"window_size\": 112, \"fullatt_block_indexes\": [7, 15, 23, 31],"
                                + " \"tokens_per_second\": 2, \"temporal_patch_size\": 2}}"));
        files.put(
                "preprocessor_config.json",
                Content.text("{\"min_pixels\": 3136, \"max_pixels\": 12845056, \"patch_size\": 14,"
                        + " \"temporal_patch_size\": 2, \"merge_size\": 2,"
                        + " \"image_mean\": [0.48145466, 0.4578275, 0.40821073],"
                        + " \"image_std\": [0.26862954, 0.26130258, 0.27577711],"
                        + " \"image_processor_type\": \"Qwen2VLImageProcessor\"}"));
        files.put("tokenizer.json", Content.lfs(Files.readAllBytes(tok.resolve("tokenizer.json"))));
        // Qwen2-VL's template in the form that matters here: an image part writes the three image tokens
        var tokenizerConfig =
                (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(tok.resolve("tokenizer_config.json").toFile());
        tokenizerConfig.put(
                "chat_template",
                "{% for m in messages %}<|im_start|>{{ m.role }}\n{% if m.content is string %}"
                        + "{{ m.content }}{% else %}{% for p in m.content %}{% if p.type == 'image' %}"
                        + "<|vision_start|><|image_pad|><|vision_end|>{% else %}{{ p.text }}{% endif %}{% endfor %}"
                        + "{% endif %}<|im_end|>\n{% endfor %}<|im_start|>assistant\n");
        files.put("tokenizer_config.json", Content.text(tokenizerConfig.toString()));
        files.put("model-00001-of-00002.safetensors", Content.lfs(new byte[50_000]));
        hub.commit(RepoId.model("acme/vl-like"), "main", files);

        CliTest.Result r = run(
                env(),
                "train",
                CliTest.CONFIGS
                        .resolve("vision-plan-path/L2-qwen2.5-vl-3b.yaml")
                        .toString(),
                "--dry-run",
                "--set",
                "policy.model=acme/vl-like");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("model config: qwen2_5_vl, 36 layers, hidden 2048, vocabulary 151936, context 128000")
                .contains("vision tower: 32 blocks, width 1280, 16 heads")
                .contains("image 280 x 280 -> 280 x 280 -> 100 tokens")
                .contains("image(s)")
                .contains("<|vision_start|><|image_pad|><|vision_end|>")
                .contains("memory per step (estimate from the configs, not measured): weights ")
                .doesNotContain("#.") // no board row in any prompt
                .contains("nothing was trained or written");
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith(".safetensors"));
    }

    /**
     * A Qwen3-1.7B-shaped model on the Hub ({@code acme/qwen-like}): its config, the Qwen3 tokenizer and weights
     * that a dry run must never fetch. Returns the tokenizer's fixture folder.
     */
    private Path commitQwenLike() throws Exception {
        Path tok = SharedFiles.fixture("qwen3-tokenizer");
        Map<String, Content> files = new LinkedHashMap<>();
        files.put(
                "config.json",
                Content.text("{\"model_type\": \"qwen3\", \"vocab_size\": 151936, \"hidden_size\": 2048,"
                        + " \"intermediate_size\": 6144, \"num_hidden_layers\": 28, \"num_attention_heads\": 16,"
                        + " \"num_key_value_heads\": 8, \"head_dim\": 128, \"max_position_embeddings\": 40960,"
                        + " \"eos_token_id\": 151645}"));
        files.put("tokenizer.json", Content.lfs(Files.readAllBytes(tok.resolve("tokenizer.json"))));
        files.put("tokenizer_config.json", Content.text(Files.readString(tok.resolve("tokenizer_config.json"))));
        files.put("model.safetensors", Content.lfs(new byte[50_000]));
        hub.commit(RepoId.model("acme/qwen-like"), "main", files);
        return tok;
    }

    @Tag("heavy")
    @Test
    void aDryRunOfTheRealModelRecipeReadsConfigTokenizerAndDataButNoWeights() throws Exception {
        Path tok = commitQwenLike();

        CliTest.Result r = run(
                env(),
                "train",
                CliTest.CONFIGS.resolve("math/L2-qwen3-1.7b.yaml").toString(),
                "--dry-run",
                "--set",
                "policy.model=acme/qwen-like",
                "--set",
                "task.options.train=hf://datasets/acme/arith/data/train-*.jsonl",
                "--set",
                "task.options.test=hf://datasets/acme/arith/data/test-*.jsonl");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("model config: qwen3, 28 layers, hidden 2048, vocabulary 151936, context 40960"
                        + " (weights not loaded)")
                .contains("--- tool: first prompt, ")
                .contains("--- reasoner: first prompt, ")
                .contains("<|im_start|>system\nYou are a helpful assistant that solves math problems by writing Python")
                .contains("Problem:\nWhat is ")
                .contains("Code agent's latest program")
                .contains(" of the context's 40960")
                .contains("nothing was trained or written");
        // weights are LFS files served from the CDN by their sha256: that blob is never asked for
        String weights = FakeHub.sha256(new byte[50_000]);
        String tokenizer = FakeHub.sha256(Files.readAllBytes(tok.resolve("tokenizer.json")));
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith("model.safetensors") || p.endsWith(weights))
                .anyMatch(p -> p.endsWith(tokenizer));
        Path snapshot;
        try (var s = Files.list(dir.resolve("hub/models--acme--qwen-like/snapshots"))) {
            snapshot = s.findFirst().orElseThrow();
        }
        assertThat(snapshot)
                .isDirectoryContaining("glob:**/tokenizer.json")
                .isDirectoryNotContaining("glob:**/model.safetensors");
        assertThat(Path.of("runs", "math-L2-qwen3-1.7b")).doesNotExist();
    }

    @Test
    void aDryRunOfTheDesignerRecipeShowsTheDesignersPromptAndADesignsCalls() throws Exception {
        Path tok = commitQwenLike();

        CliTest.Result r = run(
                env(),
                "train",
                CliTest.CONFIGS.resolve("designer/L2-qwen3-1.7b.yaml").toString(),
                "--dry-run",
                "--set",
                "policy.model=acme/qwen-like");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("dry run: design-mix-v1 | level L2 | roles [designer, solver]")
                .contains("--- designer: first prompt, ")
                .contains("--- solver: first prompt, ")
                .contains("<|im_start|>system\nYou design multi-agent workflows")
                .contains("ensemble K majority")
                .contains(" of the context's 40960")
                .contains("nothing was trained or written");
        String weights = FakeHub.sha256(new byte[50_000]);
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith("model.safetensors") || p.endsWith(weights));
    }

    @Test
    void aDryRunOfTheSearchRecipeReadsHotpotQaFromTheHubAndShowsSearchR1sFormat() throws Exception {
        commitQwenLike();
        // HotpotQA's distractor layout as the Hub serves it (three of the shared questions a split)
        List<String> rows = Files.readAllLines(Path.of(CliTest.HOTPOT)).subList(0, 6);
        Map<String, Content> data = new LinkedHashMap<>();
        data.put(
                "distractor/train-00000-of-00001.jsonl",
                Content.lfs(String.join("\n", rows.subList(0, 3)).getBytes(StandardCharsets.UTF_8)));
        data.put(
                "distractor/validation-00000-of-00001.jsonl",
                Content.lfs(String.join("\n", rows.subList(3, 6)).getBytes(StandardCharsets.UTF_8)));
        hub.commit(RepoId.dataset("acme/hotpot"), "main", data);

        CliTest.Result r = run(
                env(),
                "train",
                CliTest.CONFIGS.resolve("search/L2-qwen2.5-3b-instruct.yaml").toString(),
                "--dry-run",
                "--set",
                "policy.model=acme/qwen-like",
                "--set",
                "task.options.train=hf://datasets/acme/hotpot/distractor/train-*.jsonl",
                "--set",
                "task.options.test=hf://datasets/acme/hotpot/distractor/validation-*.jsonl");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("dry run: search-v1 | level L2 | roles [searcher, answerer]")
                .contains("--- searcher: first prompt, ")
                .contains("--- answerer: first prompt, ")
                .contains("<|im_start|>system\nYou search a collection of encyclopedia passages")
                .contains("Write the next search query as <search>query</search>.")
                .contains("nothing was trained or written");
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith("model.safetensors"));
    }

    @Test
    void aDryRunOfTheHouseholdRecipeShowsBothRolesChatPromptsWithoutWeights() throws Exception {
        commitQwenLike();
        CliTest.Result r = run(
                env(),
                "train",
                CliTest.CONFIGS
                        .resolve("household/L2-qwen2.5-1.5b-instruct.yaml")
                        .toString(),
                "--dry-run",
                "--set",
                "policy.model=acme/qwen-like");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("dry run: household-v1 | level L2 | roles [planner, actor]")
                .contains("--- planner: first prompt, ")
                .contains("--- actor: first prompt, ")
                .contains("<|im_start|>system\nYou plan for a household robot.")
                .contains("<|im_start|>system\nYou control a household robot.")
                .contains("nothing was trained or written");
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .noneMatch(p -> p.endsWith("model.safetensors"));
    }

    @Test
    void scriptedPoliciesNeedNoModelFromTheHub() {
        CliTest.Result r = run(
                env(),
                "rollout",
                CliTest.CONFIGS.resolve("math/L2.yaml").toString(),
                "--problems",
                "2",
                "--show",
                "0",
                "--set",
                "policy.model=acme/tiny-chat");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(hub.requests()).isEmpty();
    }

    @Test
    void serveTakesAHubIdForItsModel() {
        assertThat(new HubResolver(env()).model("acme/tiny-chat", "--model"))
                .isEqualTo(dir.resolve("hub/models--acme--tiny-chat/snapshots")
                        .resolve(modelCommit)
                        .toString());

        CliTest.Result r = run(env(), "serve", "--model", "acme/missing");
        assertThat(r.code()).isEqualTo(2);
        assertThat(errorLines(r))
                .singleElement()
                .asString()
                .startsWith("error: --model: 'acme/missing' is no"
                        + " directory here, and from the Hugging Face Hub: model repo acme/missing not found");
    }
}
