package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.pettingllms.tinker.server.TinkerLifecycleTest.post;
import static org.pettingllms.tinker.server.TinkerLifecycleTest.result;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Access;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Clients of different sessions on one server stay apart: an adapter one session trains is refused to another (two
 * runs of one config would otherwise train the same adapters), a session unloads only its own clients, a checkpoint
 * loads only into a client of the adapter that saved it, and the quotas on clients per session and on saved bytes
 * hold; ids cannot be guessed.
 */
class TinkerSessionsTest {
    static final String MODEL =
            SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();

    /** A started server on the tiny model: {@code clients} training clients per session, a 1-byte saved quota. */
    static TinkerServer server(EmbeddedEngine engine, Path dir, int clients) throws Exception {
        return new TinkerServer(
                        engine,
                        MODEL,
                        new TinkerServer.Options(
                                "127.0.0.1",
                                0,
                                "tiny",
                                dir,
                                8,
                                1,
                                Access.open(),
                                Duration.ofMinutes(10),
                                64,
                                clients,
                                1))
                .start();
    }

    static JsonNode create(TinkerServer s, String session, String adapter) throws Exception {
        return post(
                s,
                "create_model",
                "{\"session_id\":\"" + session + "\",\"base_model\":\"tiny\",\"lora_config\":{\"rank\":8,\"seed\":1},"
                        + "\"user_metadata\":{\"pettingllms_adapter\":\"" + adapter + "\"},\"type\":\"create_model\"}");
    }

    static String client(TinkerServer s, String session, String adapter) throws Exception {
        return result(s, create(s, session, adapter)).path("model_id").asText();
    }

    @Test
    void sessionsKeepTheirAdaptersClientsAndCheckpointsAndTheQuotasHold(@TempDir Path dir) throws Exception {
        try (EmbeddedEngine engine = EmbeddedEngine.forServing(MODEL, "cpu");
                TinkerServer s = server(engine, dir, 2)) {
            String a = post(s, "create_session", "{}").path("session_id").asText();
            String b = post(s, "create_session", "{}").path("session_id").asText();
            assertThat(a).hasSizeGreaterThanOrEqualTo("session_".length() + 32); // 122 random bits
            String tool = client(s, a, "tool");
            assertThat(tool).hasSizeGreaterThanOrEqualTo("model_".length() + 32);

            // the same adapter name from another session (a second run of the same config) is refused
            JsonNode taken = create(s, b, "tool");
            assertThat(taken.path("status").asInt()).as(taken.toString()).isEqualTo(423);
            assertThat(taken.path("detail").asText()).contains("adapter 'tool'").contains("another session");
            String plan = client(s, b, "plan");

            // at most two clients per session here
            client(s, a, "extra");
            JsonNode third = create(s, a, "more");
            assertThat(third.path("status").asInt()).as(third.toString()).isEqualTo(429);

            // a session unloads only its own clients
            JsonNode stolen = post(s, "unload_model", "{\"model_id\":\"" + tool + "\",\"session_id\":\"" + b + "\"}");
            assertThat(stolen.path("status").asInt()).as(stolen.toString()).isEqualTo(403);
            assertThat(post(s, "get_info", "{\"model_id\":\"" + tool + "\"}")
                            .path("status")
                            .asInt())
                    .isEqualTo(200);

            // one save fits the 1-byte quota (it was empty), the next is refused
            JsonNode saved = result(s, post(s, "save_weights", "{\"model_id\":\"" + tool + "\",\"path\":\"first\"}"));
            assertThat(saved.path("path").asText()).isEqualTo("tinker://" + tool + "/weights/first");
            JsonNode full = post(s, "save_weights", "{\"model_id\":\"" + tool + "\",\"path\":\"second\"}");
            assertThat(full.path("status").asInt()).as(full.toString()).isEqualTo(507);
            assertThat(full.path("detail").asText()).contains("quota");

            // another adapter's client cannot load it
            JsonNode foreign = post(
                    s,
                    "load_weights",
                    "{\"model_id\":\"" + plan + "\",\"path\":\"tinker://" + tool + "/weights/first\"}");
            assertThat(foreign.path("status").asInt()).as(foreign.toString()).isEqualTo(403);

            // once its owner unloads it, the adapter is freed and another session may start it afresh
            result(s, post(s, "unload_model", "{\"model_id\":\"" + tool + "\",\"session_id\":\"" + a + "\"}"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            JsonNode again;
            do {
                again = create(s, b, "tool");
            } while (again.path("status").asInt() == 409 && System.nanoTime() < deadline && pause());
            JsonNode reborn = result(s, again);
            assertThat(reborn.path("model_id").asText()).startsWith("model_");
        }
    }

    @Test
    void savesThatArriveTogetherPassTheQuotaByOneStateAtMost(@TempDir Path dir) throws Exception {
        try (EmbeddedEngine engine = EmbeddedEngine.forServing(MODEL, "cpu");
                TinkerServer s = server(engine, dir, 8)) {
            String session = post(s, "create_session", "{}").path("session_id").asText();
            java.util.List<String> clients = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                clients.add(client(s, session, "a" + i));
            }
            // every request passes the check made when it arrives (nothing saved yet); the states are written on
            // each client's own queue, at once
            java.util.List<JsonNode> futures = new java.util.ArrayList<>();
            for (String c : clients) {
                futures.add(post(s, "save_weights", "{\"model_id\":\"" + c + "\",\"path\":\"s\"}"));
            }
            int saved = 0;
            for (JsonNode f : futures) {
                if (f.path("status").asInt() == 507) { // refused on arrival: a state was saved by then
                    continue;
                }
                JsonNode r = result(s, f);
                if (r.has("error")) {
                    assertThat(r.path("error").asText()).contains("quota");
                } else {
                    saved++;
                }
            }
            assertThat(saved).as("states saved past a 1-byte quota").isEqualTo(1);
        }
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(50);
        return true;
    }
}
