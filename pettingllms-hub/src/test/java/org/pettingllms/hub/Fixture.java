package org.pettingllms.hub;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.pettingllms.hub.FakeHub.Content;

/** The repos and settings the hub tests share. */
final class Fixture {
    static final Retries FAST = new Retries(3, Duration.ofMillis(5), Duration.ofMillis(20));
    static final RepoId MODEL = RepoId.model("acme/tiny-model");
    static final RepoId DATASET = RepoId.dataset("acme/math-problems");
    /** Larger than the download buffer, so that a cut half-way lands between reads. */
    static final byte[] WEIGHTS = bytes(600_000, 1);

    static final String CONFIG = "{\"model_type\": \"llama\", \"hidden_size\": 64}\n";
    static final String TOKENIZER = "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\"}}\n";
    static final String TRAIN = "{\"question\": \"1+1?\", \"answer\": \"2\"}\n";
    static final String TEST = "{\"question\": \"2+2?\", \"answer\": \"4\"}\n";

    private Fixture() {}

    /** A model: a config and a tokenizer in git (one in a nested folder), weights in LFS. */
    static Map<String, Content> modelFiles() {
        Map<String, Content> files = new LinkedHashMap<>();
        files.put("config.json", Content.text(CONFIG));
        files.put("sub/dir/tokenizer.json", Content.text(TOKENIZER));
        files.put("model.safetensors", Content.lfs(WEIGHTS));
        return files;
    }

    /** A dataset: a card in git and two JSONL splits in LFS. */
    static Map<String, Content> datasetFiles() {
        Map<String, Content> files = new LinkedHashMap<>();
        files.put("README.md", Content.text("# math problems\n"));
        files.put("data/train-00000-of-00001.jsonl", Content.lfs(TRAIN.getBytes(StandardCharsets.UTF_8)));
        files.put("data/test-00000-of-00001.jsonl", Content.lfs(TEST.getBytes(StandardCharsets.UTF_8)));
        return files;
    }

    /**
     * The environment of a test: the fake Hub as HF_ENDPOINT, the cache and HOME under {@code dir} (so that no real
     * token file or cache is read), then {@code more} as name, value pairs.
     */
    static Map<String, String> env(FakeHub hub, Path dir, String... more) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", dir.toString());
        env.put("HF_HUB_CACHE", dir.resolve("hub").toString());
        if (hub != null) {
            env.put("HF_ENDPOINT", hub.endpoint().toString());
        }
        for (int i = 0; i + 1 < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    static HubClient client(Map<String, String> env) {
        return new HubClient(HubSettings.fromEnv(env), FAST);
    }

    static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
