package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.pettingllms.hub.Fixture.CONFIG;
import static org.pettingllms.hub.Fixture.MODEL;
import static org.pettingllms.hub.Fixture.WEIGHTS;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.hub.FakeHub.Request;

/** Partial downloads: resumed with a range request, restarted when the server ignores it; bad bytes never kept. */
class HubResumeTest {
    @TempDir
    Path dir;

    FakeHub hub;
    String commit;
    HubClient client;
    final String weightsSha = FakeHub.sha256(WEIGHTS);

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

    Path blobs() {
        return dir.resolve("hub/models--acme--tiny-model/blobs");
    }

    List<Request> cdnGets() {
        return hub.requests().stream()
                .filter(r -> r.server().equals("cdn") && r.method().equals("GET"))
                .toList();
    }

    @Test
    void aConnectionCutHalfWayIsResumedWithARangeRequest() throws Exception {
        hub.cutOnce(weightsSha);

        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        List<Request> gets = cdnGets();
        assertThat(gets).hasSize(2);
        assertThat(gets.get(0).header("Range")).isNull();
        // the client keeps every byte it read; how many of the sent half reach it before the close is the network's
        // business (the peer's close can drop bytes still in flight), so the resume starts somewhere in the half
        String range = gets.get(1).header("Range");
        assertThat(range).matches("bytes=\\d+-");
        assertThat(Long.parseLong(range.substring("bytes=".length(), range.length() - 1)))
                .isPositive()
                .isLessThanOrEqualTo(WEIGHTS.length / 2);
    }

    @Test
    void aPartialFileFromAnEarlierRunIsResumedWhereItStopped() throws Exception {
        Files.createDirectories(blobs());
        Files.write(blobs().resolve(weightsSha + ".incomplete"), Arrays.copyOf(WEIGHTS, 1000));

        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        assertThat(cdnGets())
                .singleElement()
                .satisfies(r -> assertThat(r.header("Range")).isEqualTo("bytes=1000-"));
        assertThat(blobs().resolve(weightsSha + ".incomplete")).doesNotExist();
    }

    @Test
    void aServerThatIgnoresTheRangeAndSendsEverythingStartsTheFileOver() throws Exception {
        hub.cdnIgnoresRange();
        Files.createDirectories(blobs());
        // whatever the partial file held, a 200 answer replaces it
        Files.write(blobs().resolve(weightsSha + ".incomplete"), new byte[5000]);

        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        assertThat(cdnGets())
                .singleElement()
                .satisfies(r -> assertThat(r.header("Range")).isEqualTo("bytes=5000-"));
    }

    @Test
    void bytesThatDoNotMatchTheLfsEtagAreAnErrorAndLeaveNothingBehind() throws Exception {
        hub.corrupt(weightsSha);

        HubException e = catchThrowableOfType(
                HubException.class, () -> client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE));

        assertThat(e.reason()).isEqualTo(HubException.Reason.CHECKSUM);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .contains("'model.safetensors' of model repo acme/tiny-model")
                .contains("sha256 " + weightsSha)
                .contains("run again");
        assertThat(blobs().resolve(weightsSha)).doesNotExist();
        assertThat(blobs().resolve(weightsSha + ".incomplete")).doesNotExist();
        Path snapshot = dir.resolve("hub/models--acme--tiny-model/snapshots").resolve(commit);
        assertThat(snapshot.resolve("model.safetensors")).doesNotExist();
        assertThat(Files.isSymbolicLink(snapshot.resolve("model.safetensors"))).isFalse();
    }

    @Test
    void aFileInGitIsCheckedByItsGitBlobSha1() {
        String configSha1 = FakeHub.gitSha1(CONFIG.getBytes());
        hub.corrupt(configSha1);

        HubException e = catchThrowableOfType(
                HubException.class,
                () -> client.snapshot(
                        HubRef.of(MODEL), new FileFilter(List.of("config.json"), List.of()), DownloadListener.NONE));

        assertThat(e.reason()).isEqualTo(HubException.Reason.CHECKSUM);
        assertThat(e.getMessage()).contains("git-sha1 " + configSha1);
        assertThat(blobs().resolve(configSha1)).doesNotExist();
    }

    @Test
    void tooLittleDiskSpaceIsSaidBeforeDownloadingAndNothingIsLinked() throws Exception {
        HubClient full = new HubClient(HubSettings.fromEnv(Fixture.env(hub, dir)), Fixture.FAST, d -> 10_000);

        HubException e = catchThrowableOfType(
                HubException.class, () -> full.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE));

        assertThat(e.reason()).isEqualTo(HubException.Reason.DISK_FULL);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .contains("'model.safetensors'")
                .contains("needs 600.0 kB")
                .contains("10.0 kB free");
        assertThat(blobs().resolve(weightsSha)).doesNotExist();
        Path snapshot = dir.resolve("hub/models--acme--tiny-model/snapshots").resolve(commit);
        assertThat(snapshot.resolve("model.safetensors")).doesNotExist();
        assertThat(cdnGets()).isEmpty();
    }

    @Test
    void aPartialDownloadStaysIncompleteWhenTheDiskFillsAndIsResumedLater() throws Exception {
        Files.createDirectories(blobs());
        Path partial = blobs().resolve(weightsSha + ".incomplete");
        Files.write(partial, Arrays.copyOf(WEIGHTS, 250_000));
        HubClient full = new HubClient(HubSettings.fromEnv(Fixture.env(hub, dir)), Fixture.FAST, d -> 1000);

        HubException e = catchThrowableOfType(
                HubException.class, () -> full.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE));

        assertThat(e.getMessage()).contains("needs 350.0 kB more");
        assertThat(Files.size(partial)).isEqualTo(250_000);
        try (Stream<Path> snap = Files.walk(dir.resolve("hub/models--acme--tiny-model/snapshots"))) {
            assertThat(snap.map(p -> p.getFileName().toString())).doesNotContain("model.safetensors");
        }
        Snapshot s = client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);
        assertThat(Files.readAllBytes(s.file("model.safetensors"))).isEqualTo(WEIGHTS);
        assertThat(cdnGets())
                .singleElement()
                .satisfies(r -> assertThat(r.header("Range")).isEqualTo("bytes=250000-"));
    }

    @Test
    void passingFailuresAreRetriedAndAPersistentOneIsOneLine() {
        hub.unavailable(2);
        assertThat(client.snapshot(
                                HubRef.of(MODEL),
                                new FileFilter(List.of("config.json"), List.of()),
                                DownloadListener.NONE)
                        .files())
                .containsExactly("config.json");

        hub.unavailable(100);
        HubClient fresh = Fixture.client(Fixture.env(hub, dir.resolve("elsewhere")));
        HubException e = catchThrowableOfType(
                HubException.class, () -> fresh.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE));
        assertThat(e.reason()).isEqualTo(HubException.Reason.UNAVAILABLE);
        assertThat(e.getMessage())
                .doesNotContain("\n")
                .contains("HTTP 503 3 time(s)")
                .contains("try again later");
    }
}
