package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.pettingllms.hub.Fixture.DATASET;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.hub.FakeHub.Request;

/** hf:// URLs as huggingface_hub's file system writes them, and fetching the one file one names. */
class HfUrlTest {
    @TempDir
    Path dir;

    @Test
    void urlsNameTheRepoTypeRevisionAndPath() {
        HfUrl d = HfUrl.parse("hf://datasets/acme/math-problems/data/train.jsonl");
        assertThat(d.ref()).isEqualTo(HubRef.of(DATASET));
        assertThat(d.path()).isEqualTo("data/train.jsonl");

        HfUrl m = HfUrl.parse("hf://Qwen/Qwen3-1.7B@v1.0/config.json");
        assertThat(m.ref()).isEqualTo(new HubRef(RepoId.model("Qwen/Qwen3-1.7B"), "v1.0"));
        assertThat(m.path()).isEqualTo("config.json");

        assertThat(HfUrl.parse("hf://datasets/acme/math-problems@refs/pr/3/data/x.jsonl")
                        .ref()
                        .revision())
                .isEqualTo("refs/pr/3");
        assertThat(HfUrl.parse("hf://datasets/acme/math-problems@refs%2Fconvert%2Fparquet/default/train/0.parquet")
                        .ref()
                        .revision())
                .isEqualTo("refs/convert/parquet");
        assertThat(HfUrl.parse("hf://datasets/acme/math-problems@refs/convert/parquet/default/train/0.parquet")
                        .path())
                .isEqualTo("default/train/0.parquet");
        assertThat(HfUrl.parse("hf://acme/m@v2/a/b.txt")).hasToString("hf://acme/m@v2/a/b.txt");

        for (String bad : new String[] {"hf://acme", "hf://acme/m", "hf://acme/m/", "hf://a--b/m/x", "s3://acme/m/x"}) {
            assertThatThrownBy(() -> HfUrl.parse(bad))
                    .as(bad)
                    .isInstanceOf(HubException.class)
                    .hasMessage("'" + bad
                            + "' is not a Hub file URL; expected hf://datasets/org/name[@revision]/path/in/repo"
                            + " (or hf://org/name/... for a model repo)");
        }
        assertThatThrownBy(() -> HfUrl.parse("hf://datasets/acme/m/../x")).hasMessageStartingWith("'../x' (path in");
        assertThatThrownBy(() -> HfUrl.parse("hf://acme/m@/x")).hasMessageContaining("is not a revision");
    }

    @Test
    void aGlobMatchingOneFileFetchesThatFileAndNothingElse() throws Exception {
        try (FakeHub hub = new FakeHub()) {
            String sha = hub.commit(DATASET, "main", Fixture.datasetFiles());
            HubClient client = Fixture.client(Fixture.env(hub, dir));

            Path test = client.file(
                    HfUrl.parse("hf://datasets/acme/math-problems/data/test-*.jsonl"), DownloadListener.NONE);

            assertThat(test)
                    .isEqualTo(dir.resolve("hub/datasets--acme--math-problems/snapshots")
                            .resolve(sha)
                            .resolve("data/test-00000-of-00001.jsonl"));
            assertThat(Files.readString(test)).isEqualTo(Fixture.TEST);
            assertThat(hub.requests()).filteredOn(Request::isBodyGet).hasSize(1);
            assertThat(test.getParent()).isDirectoryNotContaining("glob:**/train-*");

            // a pinned commit whose file is cached needs no request at all
            hub.clearRequests();
            assertThat(client.file(
                            HfUrl.parse("hf://datasets/acme/math-problems@" + sha + "/data/test-00000-of-00001.jsonl"),
                            DownloadListener.NONE))
                    .isEqualTo(test);
            assertThat(hub.requests()).isEmpty();
        }
    }

    @Test
    void aGlobMustMatchExactlyOneFile() throws Exception {
        try (FakeHub hub = new FakeHub()) {
            hub.commit(DATASET, "main", Fixture.datasetFiles());
            HubClient client = Fixture.client(Fixture.env(hub, dir));

            HubException two = catchThrowableOfType(
                    HubException.class,
                    () -> client.file(
                            HfUrl.parse("hf://datasets/acme/math-problems/data/*.jsonl"), DownloadListener.NONE));
            assertThat(two.getMessage())
                    .isEqualTo("hf://datasets/acme/math-problems/data/*.jsonl matches 2 files:"
                            + " data/train-00000-of-00001.jsonl, data/test-00000-of-00001.jsonl; it must match one");

            HubException none = catchThrowableOfType(
                    HubException.class,
                    () -> client.file(
                            HfUrl.parse("hf://datasets/acme/math-problems/*.parquet"), DownloadListener.NONE));
            assertThat(none.reason()).isEqualTo(HubException.Reason.ENTRY_NOT_FOUND);
            assertThat(none.getMessage())
                    .startsWith("hf://datasets/acme/math-problems/*.parquet matches no file (the"
                            + " repo has 3 files: README.md, ");
            // a path glob's * stays within a folder
            assertThatThrownBy(() ->
                            client.file(HfUrl.parse("hf://datasets/acme/math-problems/*.jsonl"), DownloadListener.NONE))
                    .hasMessageContaining("matches no file");
            assertThat(client.file(
                            HfUrl.parse("hf://datasets/acme/math-problems/**/train-*.jsonl"), DownloadListener.NONE))
                    .hasFileName("train-00000-of-00001.jsonl");
        }
    }
}
