package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Access;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Training clients end: one unloaded on request, and one whose session stopped sending heartbeats, answer 404 saying
 * why, while a client whose session keeps beating carries on; a training request's fields are read by type.
 */
class TinkerLifecycleTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static JsonNode post(TinkerServer s, String route, String body) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(s.uri().resolve("/api/v1/" + route))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        com.fasterxml.jackson.databind.node.ObjectNode out =
                (com.fasterxml.jackson.databind.node.ObjectNode) Http.JSON.readTree(r.body());
        return out.put("status", r.statusCode());
    }

    /** The result of an operation answered by a future. */
    static JsonNode result(TinkerServer s, JsonNode submitted) throws Exception {
        assertThat(submitted.path("status").asInt()).as(submitted.toString()).isEqualTo(200);
        String id = submitted.path("request_id").asText();
        JsonNode r;
        do {
            r = post(s, "retrieve_future", "{\"request_id\":\"" + id + "\"}");
        } while (r.path("type").asText().equals("try_again"));
        return r;
    }

    static String client(TinkerServer s, String session) throws Exception {
        return result(
                        s,
                        post(
                                s,
                                "create_model",
                                "{\"session_id\":\"" + session + "\",\"model_seq_id\":1,\"base_model\":\"tiny\","
                                        + "\"lora_config\":{\"rank\":8,\"seed\":1},\"type\":\"create_model\"}"))
                .path("model_id")
                .asText();
    }

    @Tag("heavy")
    @Test
    void unloadedClientsAndSilentSessionsEnd(@TempDir Path dir) throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedEngine engine = EmbeddedEngine.forServing(model, "cpu");
                TinkerServer s = new TinkerServer(
                                engine,
                                model,
                                new TinkerServer.Options(
                                        "127.0.0.1", 0, "tiny", dir, 8, 1, Access.open(), Duration.ofSeconds(1), 64))
                        .start()) {
            String silent = post(s, "create_session", "{}").path("session_id").asText();
            String beating = post(s, "create_session", "{}").path("session_id").asText();
            String quiet = client(s, silent);
            String alive = client(s, beating);
            String other = client(s, beating);
            // fields are read by type, not coerced: a wrong one is a 400 naming it
            for (String[] bad : new String[][] {
                {"{\"model_id\":\"" + alive + "\",\"seq_id\":\"x\",\"adam_params\":{}}", "'seq_id'"},
                {"{\"model_id\":7,\"adam_params\":{}}", "'model_id'"},
                {
                    "{\"model_id\":\"" + alive + "\",\"adam_params\":{\"learning_rate\":\"abc\"}}",
                    "'adam_params.learning_rate'"
                },
                {"{\"model_id\":\"" + alive + "\",\"adam_params\":[1]}", "'adam_params'"}
            }) {
                JsonNode r = post(s, "optim_step", bad[0]);
                assertThat(r.path("status").asInt()).as(bad[0]).isEqualTo(400);
                assertThat(r.path("detail").asText()).as(bad[0]).contains(bad[1]);
            }
            beats.scheduleAtFixedRate(
                    () -> {
                        try {
                            post(s, "session_heartbeat", "{\"session_id\":\"" + beating + "\"}");
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    0,
                    200,
                    TimeUnit.MILLISECONDS);
            Thread.sleep(2500);
            JsonNode expired = post(s, "get_info", "{\"model_id\":\"" + quiet + "\"}");
            assertThat(expired.path("status").asInt()).isEqualTo(404);
            assertThat(expired.path("detail").asText()).contains("session expired without a heartbeat");
            assertThat(post(s, "session_heartbeat", "{\"session_id\":\"" + silent + "\"}")
                            .path("status")
                            .asInt())
                    .isEqualTo(404);
            assertThat(post(s, "get_info", "{\"model_id\":\"" + alive + "\"}")
                            .path("status")
                            .asInt())
                    .isEqualTo(200);
            JsonNode unloaded = result(s, post(s, "unload_model", "{\"model_id\":\"" + alive + "\"}"));
            assertThat(unloaded.path("type").asText()).isEqualTo("unload_model");
            JsonNode gone = post(s, "get_info", "{\"model_id\":\"" + alive + "\"}");
            assertThat(gone.path("status").asInt()).isEqualTo(404);
            assertThat(gone.path("detail").asText()).contains("it was unloaded");
            assertThat(post(s, "get_info", "{\"model_id\":\"" + other + "\"}")
                            .path("status")
                            .asInt())
                    .as("another client of the same session")
                    .isEqualTo(200);
        } finally {
            beats.shutdownNow();
        }
    }
}
