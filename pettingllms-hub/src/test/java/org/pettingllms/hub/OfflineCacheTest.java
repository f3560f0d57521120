package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.pettingllms.hub.Fixture.MODEL;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.hub.HubException.Reason;

/** A cache that Python's huggingface_hub wrote is used as is, without the network; and what offline mode refuses. */
class OfflineCacheTest {
    static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
    static final String CONFIG = "{\"architectures\": [\"Qwen3ForCausalLM\"]}";
    static final byte[] WEIGHTS = Fixture.bytes(4096, 7);

    @TempDir
    Path dir;

    FakeHub hub;

    @BeforeEach
    void start() throws Exception {
        hub = new FakeHub(); // running, so that any request the client made would be seen
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    /** The cache exactly as huggingface_hub writes it: blobs, refs/main without a newline, relative links. */
    void writeAsPythonDoes(Path cache, RepoId repo) throws Exception {
        Path repoDir = cache.resolve(repo.folderName());
        Path blobs = Files.createDirectories(repoDir.resolve("blobs"));
        String configEtag = FakeHub.gitSha1(CONFIG.getBytes(StandardCharsets.UTF_8));
        String weightsEtag = FakeHub.sha256(WEIGHTS);
        Files.writeString(blobs.resolve(configEtag), CONFIG);
        Files.write(blobs.resolve(weightsEtag), WEIGHTS);
        Files.createDirectories(repoDir.resolve("refs"));
        Files.writeString(repoDir.resolve("refs/main"), COMMIT);
        Path snap = Files.createDirectories(
                repoDir.resolve("snapshots").resolve(COMMIT).resolve("onnx"));
        Files.createSymbolicLink(snap.getParent().resolve("config.json"), Path.of("../../blobs/" + configEtag));
        Files.createSymbolicLink(snap.resolve("model.onnx"), Path.of("../../../blobs/" + weightsEtag));
        Files.createDirectories(cache.resolve(".locks").resolve(repo.folderName()));
    }

    @Test
    void aCacheWrittenByPythonIsUsedOfflineWithoutAnyRequest() throws Exception {
        Path cache = dir.resolve("hf/hub");
        writeAsPythonDoes(cache, MODEL);
        HubClient client = Fixture.client(Fixture.env(
                hub, dir, "HF_HOME", dir.resolve("hf").toString(), "HF_HUB_CACHE", "", "HF_HUB_OFFLINE", "1"));

        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.commit()).isEqualTo(COMMIT);
        assertThat(s.folder())
                .isEqualTo(cache.resolve("models--acme--tiny-model/snapshots").resolve(COMMIT));
        assertThat(s.files()).containsExactly("config.json", "onnx/model.onnx");
        assertThat(Files.readString(s.file("config.json"))).isEqualTo(CONFIG);
        assertThat(Files.readAllBytes(s.file("onnx/model.onnx"))).isEqualTo(WEIGHTS);
        // by commit sha, and one file by hf:// URL with a glob
        assertThat(client.snapshot(new HubRef(MODEL, COMMIT), FileFilter.ALL, DownloadListener.NONE)
                        .folder())
                .isEqualTo(s.folder());
        assertThat(client.file(HfUrl.parse("hf://acme/tiny-model/onnx/*.onnx"), DownloadListener.NONE))
                .isEqualTo(s.file("onnx/model.onnx"));
        assertThat(hub.requests()).isEmpty();
    }

    @Test
    void onlineTheSameCacheIsReusedAndNothingIsDownloaded() throws Exception {
        writeAsPythonDoes(dir.resolve("hub"), MODEL);
        Map<String, FakeHub.Content> files = new LinkedHashMap<>();
        files.put("config.json", FakeHub.Content.text(CONFIG));
        files.put("onnx/model.onnx", FakeHub.Content.lfs(WEIGHTS));
        hub.commit(MODEL, "main", files, COMMIT);

        Snapshot s =
                Fixture.client(Fixture.env(hub, dir)).snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(s.folder())
                .isEqualTo(dir.resolve("hub/models--acme--tiny-model/snapshots").resolve(COMMIT));
        assertThat(hub.requests())
                .extracting(FakeHub.Request::path)
                .containsExactly("/api/models/acme/tiny-model/revision/main");
    }

    @Test
    void offlineWithNothingCachedIsOneLineThatNamesTheCacheAndTheSetting() {
        HubClient client = Fixture.client(Fixture.env(hub, dir, "HF_HUB_OFFLINE", "true"));

        HubException e = catchThrowableOfType(
                HubException.class, () -> client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE));

        assertThat(e.reason()).isEqualTo(Reason.NOT_CACHED);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .isEqualTo("model repo acme/tiny-model at revision 'main' is not in the Hugging Face cache "
                        + dir.resolve("hub/models--acme--tiny-model") + "; HF_HUB_OFFLINE is set, so nothing is"
                        + " downloaded: unset it to download acme/tiny-model@main");
        assertThat(hub.requests()).isEmpty();
    }

    @Test
    void offlineAFilterThatTheSnapshotDoesNotHaveIsNotCached() throws Exception {
        writeAsPythonDoes(dir.resolve("hub"), MODEL);
        HubClient client = Fixture.client(Fixture.env(hub, dir, "HF_HUB_OFFLINE", "yes"));

        HubException e = catchThrowableOfType(
                HubException.class,
                () -> client.snapshot(
                        HubRef.of(MODEL), new FileFilter(List.of("*.safetensors"), List.of()), DownloadListener.NONE));

        assertThat(e.reason()).isEqualTo(Reason.NOT_CACHED);
        assertThat(e.getMessage()).contains("has no file matching --include '*.safetensors'");
    }

    @Test
    void whenTheHubCannotBeReachedACachedRevisionIsUsed() throws Exception {
        hub.commit(MODEL, "main", Fixture.modelFiles());
        Snapshot online =
                Fixture.client(Fixture.env(hub, dir)).snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);
        hub.close();

        Snapshot again =
                Fixture.client(Fixture.env(hub, dir)).snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(again.folder()).isEqualTo(online.folder());
        assertThat(again.files()).containsExactlyInAnyOrderElementsOf(online.files());
    }
}
