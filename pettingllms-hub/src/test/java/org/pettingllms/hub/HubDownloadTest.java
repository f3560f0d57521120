package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.pettingllms.hub.Fixture.CONFIG;
import static org.pettingllms.hub.Fixture.DATASET;
import static org.pettingllms.hub.Fixture.MODEL;
import static org.pettingllms.hub.Fixture.TOKENIZER;
import static org.pettingllms.hub.Fixture.WEIGHTS;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.hub.FakeHub.Content;
import org.pettingllms.hub.FakeHub.Request;

/** Downloads into the huggingface_hub layout, and what a second fetch, a revision or a filter changes. */
class HubDownloadTest {
    @TempDir
    Path dir;

    FakeHub hub;
    String commit;
    HubClient client;

    @BeforeEach
    void start() throws Exception {
        hub = new FakeHub();
        commit = hub.commit(MODEL, "main", Fixture.modelFiles());
        client = Fixture.client(Fixture.env(hub, dir));
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    @Test
    void aModelLandsInTheLayoutHuggingfaceHubWrites() throws Exception {
        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        Path repoDir = dir.resolve("hub/models--acme--tiny-model");
        assertThat(s.commit()).isEqualTo(commit);
        assertThat(s.folder()).isEqualTo(repoDir.resolve("snapshots").resolve(commit));
        assertThat(s.files()).containsExactlyInAnyOrder("config.json", "sub/dir/tokenizer.json", "model.safetensors");
        assertThat(Files.readString(s.file("config.json"))).isEqualTo(CONFIG);
        assertThat(Files.readString(s.file("sub/dir/tokenizer.json"))).isEqualTo(TOKENIZER);
        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        // refs/main holds the commit, nothing else (huggingface_hub writes no newline)
        assertThat(Files.readString(repoDir.resolve("refs/main"))).isEqualTo(commit);
        // blobs named by git sha1 (files in git) and sha256 (LFS)
        String configSha1 = FakeHub.gitSha1(CONFIG.getBytes());
        String weightsSha256 = FakeHub.sha256(WEIGHTS);
        assertThat(Files.readString(repoDir.resolve("blobs").resolve(configSha1)))
                .isEqualTo(CONFIG);
        assertThat(Files.readAllBytes(repoDir.resolve("blobs").resolve(weightsSha256)))
                .isEqualTo(WEIGHTS);
        // relative links, one ../ more per folder of the path
        assertThat(Files.isSymbolicLink(s.file("config.json"))).isTrue();
        assertThat(Files.readSymbolicLink(s.file("config.json"))).hasToString("../../blobs/" + configSha1);
        assertThat(Files.readSymbolicLink(s.file("model.safetensors"))).hasToString("../../blobs/" + weightsSha256);
        assertThat(Files.readSymbolicLink(s.file("sub/dir/tokenizer.json")))
                .hasToString("../../../../blobs/" + FakeHub.gitSha1(TOKENIZER.getBytes()));
        try (Stream<Path> all = Files.walk(repoDir)) {
            assertThat(all.map(Path::toString)).noneMatch(p -> p.endsWith(".incomplete") || p.endsWith(".tmp"));
        }
        // the LFS file came from the CDN the HEAD redirected to
        assertThat(hub.requests())
                .anyMatch(r -> r.server().equals("cdn") && r.method().equals("GET"));
    }

    @Test
    void aDatasetLandsInItsOwnFolderThroughTheDatasetUrls() throws Exception {
        String sha = hub.commit(DATASET, "main", Fixture.datasetFiles());
        Snapshot s = client.snapshot(HubRef.of(DATASET), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.folder())
                .isEqualTo(dir.resolve("hub/datasets--acme--math-problems/snapshots")
                        .resolve(sha));
        assertThat(Files.readString(s.file("data/train-00000-of-00001.jsonl"))).isEqualTo(Fixture.TRAIN);
        assertThat(Files.readSymbolicLink(s.file("data/test-00000-of-00001.jsonl")))
                .hasToString("../../../blobs/" + FakeHub.sha256(Fixture.TEST.getBytes()));
        assertThat(hub.requests())
                .extracting(Request::path)
                .contains(
                        "/api/datasets/acme/math-problems/revision/main",
                        "/datasets/acme/math-problems/resolve/" + sha + "/README.md");
    }

    @Test
    void aSecondFetchFindsEverythingInTheCacheAndDownloadsNothing() {
        client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);
        hub.clearRequests();
        List<String> heard = new ArrayList<>();
        Snapshot again = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, (path, done, total) -> heard.add(path));

        assertThat(again.commit()).isEqualTo(commit);
        assertThat(hub.requests())
                .extracting(Request::path)
                .containsExactly("/api/models/acme/tiny-model/revision/main");
        assertThat(heard).isEmpty();
    }

    @Test
    void aBlobAnotherCommitAlreadyHasIsLinkedNotDownloaded() throws Exception {
        client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);
        Map<String, Content> files = Fixture.modelFiles();
        files.put("config.json", Content.text("{\"model_type\": \"llama\", \"hidden_size\": 128}\n"));
        String second = hub.commit(MODEL, "main", files);
        hub.clearRequests();

        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.commit()).isEqualTo(second);
        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        assertThat(hub.requests())
                .filteredOn(Request::isBodyGet)
                .extracting(Request::path)
                .containsExactly("/acme/tiny-model/resolve/" + second + "/config.json");
        assertThat(Files.readString(dir.resolve("hub/models--acme--tiny-model/refs/main")))
                .isEqualTo(second);
    }

    @Test
    void aRevisionPinnedByShaGetsThatCommitAndWritesNoRef() throws Exception {
        Map<String, Content> files = Fixture.modelFiles();
        files.put("config.json", Content.text("{}"));
        hub.commit(MODEL, "main", files);

        Snapshot s = client.snapshot(new HubRef(MODEL, commit), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.folder().getFileName()).hasToString(commit);
        assertThat(Files.readString(s.file("config.json"))).isEqualTo(CONFIG);
        // a commit sha names itself: huggingface_hub writes no refs/<sha>
        assertThat(dir.resolve("hub/models--acme--tiny-model/refs")).doesNotExist();
    }

    @Test
    void aBranchOrTagGetsItsOwnRef() throws Exception {
        String v1 = hub.commit(MODEL, "v1.0", Map.of("config.json", Content.text("{\"v\": 1}")));

        Snapshot s = client.snapshot(new HubRef(MODEL, "v1.0"), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.commit()).isEqualTo(v1);
        assertThat(Files.readString(dir.resolve("hub/models--acme--tiny-model/refs/v1.0")))
                .isEqualTo(v1);
        assertThat(hub.requests()).extracting(Request::path).contains("/api/models/acme/tiny-model/revision/v1.0");
    }

    @Test
    void includeAndExcludePatternsChooseTheFilesAsAllowPatternsDo() {
        Snapshot json =
                client.snapshot(HubRef.of(MODEL), new FileFilter(List.of("*.json"), List.of()), DownloadListener.NONE);
        // fnmatch's * crosses folders
        assertThat(json.files()).containsExactlyInAnyOrder("config.json", "sub/dir/tokenizer.json");
        assertThat(Files.exists(json.file("model.safetensors"))).isFalse();
        assertThat(hub.requests()).noneMatch(r -> r.server().equals("cdn"));

        Snapshot notSub = client.snapshot(
                HubRef.of(MODEL), new FileFilter(List.of("*.json"), List.of("sub/")), DownloadListener.NONE);
        assertThat(notSub.files()).containsExactly("config.json");

        assertThatThrownBy(() -> client.snapshot(
                        HubRef.of(MODEL), new FileFilter(List.of("*.gguf"), List.of()), DownloadListener.NONE))
                .isInstanceOf(HubException.class)
                .hasMessage(
                        "no file of model repo acme/tiny-model at revision 'main' matches --include '*.gguf'; it has"
                                + " 3 files: config.json, sub/dir/tokenizer.json, model.safetensors");
    }

    @Test
    void aRenamedRepoIsFollowedThroughItsRelativeRedirects() throws Exception {
        RepoId old = RepoId.model("acme/old-name");
        hub.rename(old, MODEL);

        Snapshot s = client.snapshot(HubRef.of(old), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.folder()).startsWith(dir.resolve("hub/models--acme--old-name"));
        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        assertThat(Files.readString(s.file("config.json"))).isEqualTo(CONFIG);
    }

    @Test
    void theListenerHearsThePlanAndEveryFileToItsSize() {
        List<FileMeta> plan = new ArrayList<>();
        Map<String, Long> last = new ConcurrentHashMap<>();
        client.snapshot(HubRef.of(MODEL), FileFilter.ALL, new DownloadListener() {
            @Override
            public void starting(List<FileMeta> downloads) {
                plan.addAll(downloads);
            }

            @Override
            public void progress(String path, long done, long total) {
                last.put(path, done);
                assertThat(done).isLessThanOrEqualTo(total);
            }
        });
        assertThat(plan)
                .extracting(FileMeta::path)
                .containsExactlyInAnyOrder("config.json", "sub/dir/tokenizer.json", "model.safetensors");
        assertThat(plan).filteredOn(FileMeta::lfs).singleElement().satisfies(m -> {
            assertThat(m.size()).isEqualTo(WEIGHTS.length);
            assertThat(m.etag()).isEqualTo(FakeHub.sha256(WEIGHTS));
            assertThat(m.check()).isEqualTo(FileMeta.Check.SHA256);
        });
        assertThat(last).containsEntry("model.safetensors", (long) WEIGHTS.length);
    }

    @Test
    void twoConcurrentFetchesOfOneRepoDownloadEachBlobOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Snapshot>> both = List.of(
                    pool.submit(() -> client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE)),
                    pool.submit(() -> Fixture.client(Fixture.env(hub, dir))
                            .snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE)));
            for (Future<Snapshot> f : both) {
                assertThat(Files.readAllBytes(f.get().file("model.safetensors")))
                        .isEqualTo(WEIGHTS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(hub.requests()).filteredOn(r -> r.server().equals("cdn")).hasSize(1);
    }
}
