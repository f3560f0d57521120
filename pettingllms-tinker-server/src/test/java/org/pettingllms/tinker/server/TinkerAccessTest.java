package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.pettingllms.testkit.HttpCalls.json;
import static org.pettingllms.testkit.HttpCalls.send;

import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Access;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The Tinker server behind a key: 401 without it (the health check open), a body over the limit 413 before it is
 * read; in Tinker's error format (detail), and the server still answers after.
 */
class TinkerAccessTest {
    static EmbeddedEngine engine;
    static TinkerServer tinker;
    static final Access ACCESS = new Access("s3cret", false, 4096);

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        tinker = new TinkerServer(engine, model, new TinkerServer.Options("127.0.0.1", 0, "tiny", dir, 8, 1, ACCESS))
                .start();
    }

    @AfterAll
    static void stop() {
        tinker.close();
        engine.close();
    }

    @Test
    void theTinkerServerWantsItsKeyAndRefusesLargeBodies() throws Exception {
        URI session = tinker.uri().resolve("/api/v1/create_session");
        String body = "{\"tags\":[],\"user_metadata\":{},\"sdk_version\":\"0.1\",\"type\":\"create_session\"}";
        assertThat(send(tinker.uri().resolve("/api/v1/healthz"), "GET", null).statusCode())
                .isEqualTo(200);
        var refused = send(session, "POST", body);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(json(refused).path("detail").asText()).contains("--api-key");
        var created = send(session, "POST", body, "X-API-Key", "s3cret");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        var big = send(session, "POST", "{\"tags\":[\"" + "x".repeat(5000) + "\"]}", "X-API-Key", "s3cret");
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(json(big).path("detail").asText()).isNotEmpty();
        assertThat(send(session, "POST", body, "Authorization", "Bearer s3cret").statusCode())
                .isEqualTo(200);
    }
}
