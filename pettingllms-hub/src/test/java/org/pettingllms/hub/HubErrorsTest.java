package org.pettingllms.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.pettingllms.hub.Fixture.MODEL;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.hub.FakeHub.Request;
import org.pettingllms.hub.HubException.Reason;

/** Every refusal of the Hub, and a missing network, as one line that says what to do; the token's travels. */
class HubErrorsTest {
    @TempDir
    Path dir;

    FakeHub hub;

    @BeforeEach
    void start() throws Exception {
        hub = new FakeHub();
        hub.commit(MODEL, "main", Fixture.modelFiles());
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    HubException fails(HubClient client, HubRef ref) {
        HubException e = catchThrowableOfType(
                HubException.class, () -> client.snapshot(ref, FileFilter.ALL, DownloadListener.NONE));
        assertThat(e).as("no exception for %s", ref).isNotNull();
        assertThat(e.getMessage()).doesNotContain("\n");
        return e;
    }

    @Test
    void aGatedRepoSaysToAcceptItsTermsAndSetHfToken() throws Exception {
        hub.gate(MODEL, "hf_accepted");

        HubException anonymous = fails(Fixture.client(Fixture.env(hub, dir)), HubRef.of(MODEL));
        assertThat(anonymous.reason()).isEqualTo(Reason.GATED_REPO);
        assertThat(anonymous.getMessage())
                .isEqualTo("model repo acme/tiny-model is gated: accept its terms on "
                        + hub.endpoint()
                        + "/acme/tiny-model (logged in), then set HF_TOKEN to a token of that account (no"
                        + " token was sent)");

        HubException other = fails(Fixture.client(Fixture.env(hub, dir, "HF_TOKEN", "hf_other")), HubRef.of(MODEL));
        assertThat(other.reason()).isEqualTo(Reason.GATED_REPO);
        assertThat(other.getMessage()).endsWith("(the token sent has no access yet)");

        Snapshot s = Fixture.client(Fixture.env(hub, dir, "HF_TOKEN", "hf_accepted"))
                .snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);
        assertThat(s.files()).hasSize(3);
    }

    @Test
    void aMissingRepoIsNamedWithAHintAboutPrivateRepos() {
        HubException e = fails(Fixture.client(Fixture.env(hub, dir)), HubRef.of(RepoId.model("acme/nope")));
        assertThat(e.reason()).isEqualTo(Reason.REPO_NOT_FOUND);
        assertThat(e.getMessage())
                .isEqualTo("model repo acme/nope not found on " + hub.endpoint()
                        + " (if it is private or gated, set HF_TOKEN to a token that can read it)");

        HubException withToken = fails(
                Fixture.client(Fixture.env(hub, dir, "HF_TOKEN", "hf_x")), HubRef.of(RepoId.dataset("acme/nope")));
        assertThat(withToken.reason()).isEqualTo(Reason.REPO_NOT_FOUND);
        assertThat(withToken.getMessage())
                .startsWith("dataset repo acme/nope not found on ")
                .contains("the token sent cannot read it");
    }

    @Test
    void aMissingRevisionAndAMissingFileAreNamed() {
        HubClient client = Fixture.client(Fixture.env(hub, dir));
        HubException rev = fails(client, new HubRef(MODEL, "v9"));
        assertThat(rev.reason()).isEqualTo(Reason.REVISION_NOT_FOUND);
        assertThat(rev.getMessage()).startsWith("revision 'v9' not found in model repo acme/tiny-model");

        HubHttp http = new HubHttp(client.settings(), Fixture.FAST);
        HubException entry = catchThrowableOfType(HubException.class, () -> http.head(MODEL, "main", "nope.bin"));
        assertThat(entry.reason()).isEqualTo(Reason.ENTRY_NOT_FOUND);
        assertThat(entry.getMessage())
                .isEqualTo("file 'nope.bin' not found in model repo acme/tiny-model at revision" + " 'main'");
    }

    @Test
    void theTokenGoesToTheHubAndNeverToTheCdn() {
        HubClient client = Fixture.client(Fixture.env(hub, dir, "HF_TOKEN", "hf_secret"));
        client.snapshot(HubRef.of(MODEL), FileFilter.ALL, DownloadListener.NONE);

        assertThat(hub.requests())
                .filteredOn(r -> r.server().equals("hub"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer hf_secret"));
        assertThat(hub.requests())
                .filteredOn(r -> r.server().equals("cdn"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.header("Authorization")).isNull());
    }

    @Test
    void theTokenFileIsReadWhenHfTokenIsUnset() throws Exception {
        Path hfHome = dir.resolve("hf-home");
        Files.createDirectories(hfHome);
        Files.writeString(hfHome.resolve("token"), "hf_from_file\n");
        HubClient client = Fixture.client(Fixture.env(hub, dir, "HF_HOME", hfHome.toString()));
        client.snapshot(HubRef.of(MODEL), new FileFilter(List.of("config.json"), List.of()), DownloadListener.NONE);

        assertThat(hub.requests())
                .extracting(Request::headers)
                .allSatisfy(h -> assertThat(h.getFirst("Authorization")).isEqualTo("Bearer hf_from_file"));
    }

    @Test
    void noNetworkNamesTheEndpointAndOfflineMode() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        HubClient client = Fixture.client(Fixture.env(null, dir, "HF_ENDPOINT", "http://127.0.0.1:" + closedPort));

        HubException e = fails(client, HubRef.of(MODEL));

        assertThat(e.reason()).isEqualTo(Reason.NO_NETWORK);
        assertThat(e.getMessage())
                .startsWith("cannot reach http://127.0.0.1:" + closedPort + " (connection refused)")
                .contains("HF_ENDPOINT")
                .contains("HF_HUB_OFFLINE=1");
    }

    @Test
    void anUnknownHostIsNotRetried() {
        HubClient client = Fixture.client(Fixture.env(null, dir, "HF_ENDPOINT", "http://no-such-host.invalid"));
        long t0 = System.nanoTime();

        HubException e = fails(client, HubRef.of(MODEL));

        assertThat(e.reason()).isEqualTo(Reason.NO_NETWORK);
        assertThat(e.getMessage()).contains("unknown host");
        assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
    }
}
