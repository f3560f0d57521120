package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.pettingllms.testkit.HttpCalls.json;
import static org.pettingllms.testkit.HttpCalls.post;
import static org.pettingllms.testkit.HttpCalls.send;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Fields;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.tinker.server.Route.Schema;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The route table's contract: a route is declared with its schema in one place and registered by one line, and is
 * then served with the API's checks (an unknown field a 400 naming it, not a 500); a route without a schema is
 * refused when it is declared, one that repeats a route's method and path when the server is built. The seam is
 * package-private (the routes are not public API), so this test lives beside the server.
 */
class TinkerRouteTableTest {
    static EmbeddedEngine engine;
    static Path dir;

    /** The toy route: its path, its fields and its handler, in one place. */
    static final Route ECHO = Route.post(
            "/api/v1/toy_echo",
            Schema.of("word", "type"),
            (ctx, body) -> Replies.ok(ctx, Replies.json().put("echo", Fields.text(body, "word", ""))));

    @BeforeAll
    static void open(@TempDir Path tmp) throws Exception {
        dir = tmp;
        engine = EmbeddedEngine.forServing(
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString(), "cpu");
    }

    @AfterAll
    static void close() {
        engine.close();
    }

    static TinkerServer server(List<Route> extra) throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        return new TinkerServer(engine, model, new TinkerServer.Options("127.0.0.1", 0, "tiny", dir, 8, 1), extra);
    }

    @Test
    void aRouteRegisteredWithItsSchemaIsServed() throws Exception {
        try (TinkerServer s = server(List.of(ECHO)).start()) {
            HttpResponse<String> ok = post(s.uri().resolve("/api/v1/toy_echo"), "{\"word\":\"hi\",\"type\":\"x\"}");
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            assertThat(json(ok).path("echo").asText()).isEqualTo("hi");

            HttpResponse<String> unknown = post(s.uri().resolve("/api/v1/toy_echo"), "{\"word\":\"hi\",\"loud\":1}");
            assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(400);
            assertThat(json(unknown).path("detail").asText())
                    .contains("'loud'")
                    .contains("toy_echo")
                    .contains("[type, word]");

            HttpResponse<String> notJson = post(s.uri().resolve("/api/v1/toy_echo"), "{\"word\":");
            assertThat(notJson.statusCode()).as(notJson.body()).isEqualTo(400);

            // the API's own routes are served beside it
            assertThat(send(s.uri().resolve("/api/v1/healthz"), "GET", null).statusCode())
                    .isEqualTo(200);
            HttpResponse<String> session = post(s.uri().resolve("/api/v1/create_session"), "{}");
            assertThat(json(session).path("session_id").asText()).startsWith("session_");
        }
    }

    @Test
    void aRouteWithoutASchemaIsRefusedWhenDeclared() {
        assertThatThrownBy(() -> Route.post("/api/v1/toy_echo", null, ECHO.handler()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("POST /api/v1/toy_echo")
                .hasMessageContaining("no field schema");
        assertThatThrownBy(() -> Route.post("/api/v1/toy_echo", Schema.NO_BODY, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no handler");
    }

    @Test
    void aRouteDeclaredTwiceIsRefusedBeforeTheServerStarts() {
        Route again = Route.post("/api/v1/asample", Schema.of("type"), ECHO.handler());
        assertThatThrownBy(() -> server(List.of(again)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("POST /api/v1/asample is declared twice");
    }
}
